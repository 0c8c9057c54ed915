// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/**
 * @title BurnerDelegate
 * @notice EIP-7702 delegate for one-time deposit (burner) EOAs. A burner signs an authorization that points
 * its code at this contract; every function below then runs as code of the burner, so `address(this)` is the
 * burner and every signature must recover to `address(this)`.
 *
 * @dev EIP-712 domain: name "BurnerDelegate", version "2", chainId = block.chainid,
 * verifyingContract = address(this), i.e. the burner address, not the address this contract was deployed at.
 * A signature is therefore bound to one burner on one chain. OpenZeppelin's EIP712 rebuilds the separator
 * whenever `address(this)` differs from the deployment address, which is always the case under delegation.
 *
 * Configuration lives in immutables (part of the code) because the burner's storage is never initialised: no
 * constructor runs for it. The only state (used salts) sits in an ERC-7201 namespace so it cannot collide with
 * whatever else the EOA's storage holds from earlier or later delegations.
 *
 * Signed types:
 *   Intent(uint256 destChainId,address destAddr,uint256 minOut,uint256 deadline,bytes32 salt,address inToken,
 *          uint256 maxIn,uint16 appFeeBps,address appFeeRecipient)
 *   Refund(address token,address to,uint256 amount,uint256 deadline,bytes32 salt)
 *   StandingRefund(address to,uint256 deadline)
 * A token address of zero means native ETH everywhere.
 */
contract BurnerDelegate is EIP712 {
  using SafeERC20 for IERC20;

  struct Intent {
    uint256 destChainId;
    address destAddr;
    uint256 minOut;
    uint256 deadline;
    bytes32 salt;
    address inToken;
    uint256 maxIn;
    uint16 appFeeBps;
    address appFeeRecipient;
  }

  struct Refund {
    address token;
    address to;
    uint256 amount;
    uint256 deadline;
    bytes32 salt;
  }

  /// @custom:storage-location erc7201:settlement.storage.BurnerDelegate
  struct DelegateStorage {
    mapping(bytes32 salt => bool) intentSaltUsed;
    mapping(bytes32 salt => bool) refundSaltUsed;
  }

  // keccak256(abi.encode(uint256(keccak256("settlement.storage.BurnerDelegate")) - 1)) & ~bytes32(uint256(0xff))
  bytes32 private constant STORAGE_SLOT = 0xc1f55e0bace122e388ba03e48329fcea5e7b6f62842212b9378caa08bee37b00;

  bytes32 public constant INTENT_TYPEHASH = keccak256(
    "Intent(uint256 destChainId,address destAddr,uint256 minOut,uint256 deadline,bytes32 salt,address inToken,uint256 maxIn,uint16 appFeeBps,address appFeeRecipient)"
  );
  bytes32 public constant REFUND_TYPEHASH =
    keccak256("Refund(address token,address to,uint256 amount,uint256 deadline,bytes32 salt)");
  bytes32 public constant STANDING_REFUND_TYPEHASH = keccak256("StandingRefund(address to,uint256 deadline)");

  uint16 public constant MAX_FEE_BPS = 100;
  uint256 private constant BPS = 10_000;

  /// @notice The relayer allowed to sweep and to run standing refunds before their deadline.
  address public immutable KEEPER;
  /// @notice Receives the platform fee taken on every sweep.
  address public immutable PLATFORM_FEE_RECIPIENT;

  event Swept(
    bytes32 indexed salt,
    address indexed token,
    address indexed to,
    uint256 destChainId,
    address destAddr,
    uint256 amount,
    uint256 platformFee,
    uint256 appFee
  );
  event Refunded(bytes32 indexed salt, address indexed token, address indexed to, uint256 amount);
  event StandingRefundExecuted(address indexed token, address indexed to, uint256 amount, address caller);

  error ZeroAddress();
  error NotKeeper();
  error Expired();
  error SaltUsed(bytes32 salt);
  error BadSignature(address recovered);
  error FeeTooHigh();
  error WrongRecipient();
  error BelowMinOut(uint256 amount, uint256 minOut);
  error NothingToMove();
  error NativeTransferFailed();

  constructor(address keeper, address platformFeeRecipient) EIP712("BurnerDelegate", "2") {
    if (keeper == address(0) || platformFeeRecipient == address(0)) revert ZeroAddress();
    KEEPER = keeper;
    PLATFORM_FEE_RECIPIENT = platformFeeRecipient;
  }

  receive() external payable {}

  /**
   * @notice Moves min(balance, maxIn) of `intent.inToken` out of the burner: platform fee (`feeBps`, chosen by
   * the keeper, at most MAX_FEE_BPS) and the signed app fee come off the top, the rest goes to `to`.
   * @param to Must equal `intent.destAddr` for a same-chain intent; for a cross-chain intent it is the bridge or
   * router the keeper picked. Either way the amount sent must be at least `intent.minOut`.
   */
  function sweep(Intent calldata intent, bytes calldata sig, uint16 feeBps, address to) external {
    if (msg.sender != KEEPER) revert NotKeeper();
    if (block.timestamp > intent.deadline) revert Expired();
    if (feeBps > MAX_FEE_BPS || uint256(feeBps) + intent.appFeeBps > BPS) revert FeeTooHigh();
    if (intent.appFeeBps != 0 && intent.appFeeRecipient == address(0)) revert ZeroAddress();
    if (to == address(0)) revert ZeroAddress();
    if (intent.destChainId == block.chainid && to != intent.destAddr) revert WrongRecipient();

    DelegateStorage storage $ = _storage();
    if ($.intentSaltUsed[intent.salt]) revert SaltUsed(intent.salt);
    // A static struct ABI-encodes to its fields, one word each: exactly EIP-712's encodeData.
    _checkSigner(keccak256(abi.encode(INTENT_TYPEHASH, intent)), sig);
    $.intentSaltUsed[intent.salt] = true;

    uint256 amount = _balanceOf(intent.inToken);
    if (amount > intent.maxIn) amount = intent.maxIn;
    if (amount == 0) revert NothingToMove();

    uint256 platformFee = (amount * feeBps) / BPS;
    uint256 appFee = (amount * intent.appFeeBps) / BPS;
    uint256 net = amount - platformFee - appFee;
    if (net < intent.minOut) revert BelowMinOut(net, intent.minOut);

    if (platformFee != 0) _send(intent.inToken, PLATFORM_FEE_RECIPIENT, platformFee);
    if (appFee != 0) _send(intent.inToken, intent.appFeeRecipient, appFee);
    _send(intent.inToken, to, net);
    emit Swept(intent.salt, intent.inToken, to, intent.destChainId, intent.destAddr, net, platformFee, appFee);
  }

  /// @notice Sends `r.amount` of `r.token` to the signed recipient. Anyone may submit; the signature pins `to`.
  function refund(Refund calldata r, bytes calldata sig) external {
    if (block.timestamp > r.deadline) revert Expired();
    if (r.to == address(0)) revert ZeroAddress();
    DelegateStorage storage $ = _storage();
    if ($.refundSaltUsed[r.salt]) revert SaltUsed(r.salt);
    _checkSigner(keccak256(abi.encode(REFUND_TYPEHASH, r)), sig);
    $.refundSaltUsed[r.salt] = true;

    _send(r.token, r.to, r.amount);
    emit Refunded(r.salt, r.token, r.to, r.amount);
  }

  /**
   * @notice Moves the whole current balance of `token` to `to` under a reusable StandingRefund(to, deadline).
   * Up to and including `deadline` only the keeper may run it; afterwards anyone may, so funds cannot be stuck
   * if the keeper disappears.
   */
  function executeStandingRefund(address to, uint256 deadline, bytes calldata sig, address token) external {
    if (block.timestamp <= deadline && msg.sender != KEEPER) revert NotKeeper();
    if (to == address(0)) revert ZeroAddress();
    _checkSigner(keccak256(abi.encode(STANDING_REFUND_TYPEHASH, to, deadline)), sig);

    uint256 amount = _balanceOf(token);
    if (amount == 0) revert NothingToMove();
    _send(token, to, amount);
    emit StandingRefundExecuted(token, to, amount, msg.sender);
  }

  function intentSaltUsed(bytes32 salt) external view returns (bool) {
    return _storage().intentSaltUsed[salt];
  }

  function refundSaltUsed(bytes32 salt) external view returns (bool) {
    return _storage().refundSaltUsed[salt];
  }

  /// @notice EIP-712 domain separator as seen by the burner currently executing this code.
  function domainSeparator() external view returns (bytes32) {
    return _domainSeparatorV4();
  }

  function _checkSigner(bytes32 structHash, bytes calldata sig) private view {
    address signer = ECDSA.recoverCalldata(_hashTypedDataV4(structHash), sig);
    if (signer != address(this)) revert BadSignature(signer);
  }

  function _balanceOf(address token) private view returns (uint256) {
    return token == address(0) ? address(this).balance : IERC20(token).balanceOf(address(this));
  }

  function _send(address token, address to, uint256 amount) private {
    if (token == address(0)) {
      (bool ok,) = to.call{value: amount}("");
      if (!ok) revert NativeTransferFailed();
    } else {
      IERC20(token).safeTransfer(to, amount);
    }
  }

  function _storage() private pure returns (DelegateStorage storage $) {
    assembly {
      $.slot := STORAGE_SLOT
    }
  }
}
