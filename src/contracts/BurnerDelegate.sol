// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @notice The Uniswap V2 router call the sweep makes (UniswapV2Router02).
interface IUniswapV2Router {
  function swapExactTokensForTokens(
    uint256 amountIn,
    uint256 amountOutMin,
    address[] calldata path,
    address to,
    uint256 deadline
  ) external returns (uint256[] memory amounts);
}

interface IWETH {
  function deposit() external payable;
}

/// @notice Circle CCTP V2's TokenMessengerV2 entry point (the local src/contracts/TokenMessengerV2.sol has it too).
interface ITokenMessengerV2 {
  function depositForBurn(
    uint256 amount,
    uint32 destinationDomain,
    bytes32 mintRecipient,
    address burnToken,
    bytes32 destinationCaller,
    uint256 maxFee,
    uint32 minFinalityThreshold
  ) external;
}

/**
 * @title BurnerDelegate
 * @notice EIP-7702 delegate for one-time deposit (burner) EOAs. A burner signs an authorization that points
 * its code at this contract; every function below then runs as code of the burner, so `address(this)` is the
 * burner and every signature must recover to `address(this)`.
 *
 * The sweep enforces the whole signed Intent: deposit identity (inToken, maxIn), the swap's output floor
 * (minOut), the app fee, and the recipient and destination chain. The keeper chooses only the platform fee
 * (capped) and the bridge's speed and fee (capped); there is no recipient, router or bridge argument: the
 * router, the bridge (CCTP TokenMessengerV2), USDC, WETH and the chain id -> CCTP domain table are immutables.
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

  /// @dev What one sweep moved, in the units of its token (amountIn) and of USDC (the rest).
  struct Settlement {
    uint256 amountIn;
    uint256 usdcOut;
    uint256 platformFee;
    uint256 appFee;
    uint256 delivered;
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
  /// @notice Cap on the bridge's `maxFee` (CCTP fast-transfer fee), in bps of the amount burned. Circle's
  /// standard transfers cost 0 and its fast-transfer fees are a few bps; the cap keeps the keeper from giving
  /// the payer's money to the bridge.
  uint16 public constant MAX_BRIDGE_FEE_BPS = 20;
  /// @notice How many chain id -> CCTP domain routes the constructor accepts (immutables cannot be arrays).
  uint256 public constant MAX_ROUTES = 8;
  uint256 private constant BPS = 10_000;

  /// @notice The relayer allowed to sweep and to run standing refunds before their deadline.
  address public immutable KEEPER;
  /// @notice Receives the platform fee taken on every sweep.
  address public immutable PLATFORM_FEE_RECIPIENT;
  /// @notice The token every sweep settles in; what the bridge burns and mints.
  address public immutable USDC;
  /// @notice Native ETH is wrapped here before it is swapped.
  address public immutable WETH;
  /// @notice The Uniswap V2 router every non-USDC deposit is swapped through.
  address public immutable ROUTER;
  /// @notice The one bridge a cross-chain sweep may use (CCTP V2 TokenMessengerV2).
  address public immutable TOKEN_MESSENGER;

  // Destination routes, (chainId << 32) | cctpDomain each, 0 when unused: chain id 0 is never a real chain.
  uint256 private immutable ROUTE_0;
  uint256 private immutable ROUTE_1;
  uint256 private immutable ROUTE_2;
  uint256 private immutable ROUTE_3;
  uint256 private immutable ROUTE_4;
  uint256 private immutable ROUTE_5;
  uint256 private immutable ROUTE_6;
  uint256 private immutable ROUTE_7;

  /// @notice One per sweep. USDC amounts except amountIn (in inToken's units); delivered = usdcOut - fees, sent
  /// to destAddr on this chain or burned for destAddr on destChainId.
  event Swept(
    bytes32 indexed salt,
    address indexed inToken,
    address indexed destAddr,
    uint256 amountIn,
    uint256 usdcOut,
    uint256 platformFee,
    uint256 appFee,
    uint256 delivered,
    uint256 destChainId
  );
  event Refunded(bytes32 indexed salt, address indexed token, address indexed to, uint256 amount);
  event StandingRefundExecuted(address indexed token, address indexed to, uint256 amount, address caller);

  error ZeroAddress();
  error NotKeeper();
  error Expired();
  error SaltUsed(bytes32 salt);
  error BadSignature(address recovered);
  error FeeTooHigh();
  error BridgeFeeTooHigh(uint256 maxFee, uint256 amount);
  error BelowMinOut(uint256 amount, uint256 minOut);
  error NothingToMove();
  /// A refund to the burner itself moves nothing and only spends the submitter's gas.
  error RecipientIsBurner();
  error NativeTransferFailed();
  error UnsupportedDestination(uint256 chainId);
  error BadRoutes();

  /**
   * @param destChainIds Chains a sweep may bridge to, with their CCTP domains in `destDomains` (same order, at
   * most MAX_ROUTES, no duplicates, no zero).
   */
  constructor(
    address keeper,
    address platformFeeRecipient,
    address usdc,
    address weth,
    address router,
    address tokenMessenger,
    uint256[] memory destChainIds,
    uint32[] memory destDomains
  ) EIP712("BurnerDelegate", "2") {
    if (
      keeper == address(0) || platformFeeRecipient == address(0) || usdc == address(0) || weth == address(0)
        || router == address(0) || tokenMessenger == address(0)
    ) revert ZeroAddress();
    KEEPER = keeper;
    PLATFORM_FEE_RECIPIENT = platformFeeRecipient;
    USDC = usdc;
    WETH = weth;
    ROUTER = router;
    TOKEN_MESSENGER = tokenMessenger;

    uint256 n = destChainIds.length;
    if (n != destDomains.length || n > MAX_ROUTES) revert BadRoutes();
    uint256[MAX_ROUTES] memory routes;
    for (uint256 i = 0; i < n; i++) {
      uint256 id = destChainIds[i];
      if (id == 0 || id > type(uint224).max) revert BadRoutes();
      for (uint256 j = 0; j < i; j++) {
        if (destChainIds[j] == id) revert BadRoutes();
      }
      routes[i] = (id << 32) | destDomains[i];
    }
    ROUTE_0 = routes[0];
    ROUTE_1 = routes[1];
    ROUTE_2 = routes[2];
    ROUTE_3 = routes[3];
    ROUTE_4 = routes[4];
    ROUTE_5 = routes[5];
    ROUTE_6 = routes[6];
    ROUTE_7 = routes[7];
  }

  receive() external payable {}

  /**
   * @notice Settles the signed Intent in one transaction: takes min(balance, maxIn) of `inToken` (native ETH is
   * wrapped to WETH), swaps it to USDC through ROUTER with `minOut` as the swap's floor (USDC is not swapped and
   * must itself reach `minOut`), pays the platform fee (`feeBps`) and the signed app fee out of the USDC, and
   * delivers the rest to `destAddr`: a transfer when `destChainId` is this chain, otherwise a CCTP burn through
   * TOKEN_MESSENGER naming `destAddr` on `destChainId`'s domain, relayable by anyone.
   * @param feeBps Platform fee resolved at commit, at most MAX_FEE_BPS.
   * @param bridgeMaxFee CCTP `maxFee` for a cross-chain sweep (at most MAX_BRIDGE_FEE_BPS of the amount burned);
   * must be 0 for a same-chain sweep.
   * @param minFinalityThreshold CCTP finality (1000 fast, 2000 standard); ignored for a same-chain sweep.
   */
  function sweep(
    Intent calldata intent,
    bytes calldata sig,
    uint16 feeBps,
    uint256 bridgeMaxFee,
    uint32 minFinalityThreshold
  ) external {
    if (msg.sender != KEEPER) revert NotKeeper();
    if (block.timestamp > intent.deadline) revert Expired();
    if (feeBps > MAX_FEE_BPS || uint256(feeBps) + intent.appFeeBps > BPS) revert FeeTooHigh();
    if (intent.appFeeBps != 0 && intent.appFeeRecipient == address(0)) revert ZeroAddress();
    if (intent.destAddr == address(0)) revert ZeroAddress();

    DelegateStorage storage $ = _storage();
    if ($.intentSaltUsed[intent.salt]) revert SaltUsed(intent.salt);
    // A static struct ABI-encodes to its fields, one word each: exactly EIP-712's encodeData.
    _checkSigner(keccak256(abi.encode(INTENT_TYPEHASH, intent)), sig);
    $.intentSaltUsed[intent.salt] = true;

    Settlement memory s;
    (s.amountIn, s.usdcOut) = _takeAsUsdc(intent.inToken, intent.maxIn, intent.minOut);
    s.platformFee = (s.usdcOut * feeBps) / BPS;
    s.appFee = (s.usdcOut * intent.appFeeBps) / BPS;
    s.delivered = s.usdcOut - s.platformFee - s.appFee;
    if (s.delivered == 0) revert NothingToMove();

    if (s.platformFee != 0) IERC20(USDC).safeTransfer(PLATFORM_FEE_RECIPIENT, s.platformFee);
    if (s.appFee != 0) IERC20(USDC).safeTransfer(intent.appFeeRecipient, s.appFee);
    _deliver(intent.destChainId, intent.destAddr, s.delivered, bridgeMaxFee, minFinalityThreshold);
    _emitSwept(intent, s);
  }

  /// @notice The CCTP domain a sweep to `chainId` burns for; reverts for a chain that is not a route.
  function destinationDomain(uint256 chainId) public view returns (uint32) {
    uint256[MAX_ROUTES] memory routes = [ROUTE_0, ROUTE_1, ROUTE_2, ROUTE_3, ROUTE_4, ROUTE_5, ROUTE_6, ROUTE_7];
    for (uint256 i = 0; i < MAX_ROUTES; i++) {
      if (routes[i] != 0 && routes[i] >> 32 == chainId) return uint32(routes[i]);
    }
    revert UnsupportedDestination(chainId);
  }

  /// @notice Sends `r.amount` of `r.token` to the signed recipient. Anyone may submit; the signature pins `to`.
  function refund(Refund calldata r, bytes calldata sig) external {
    if (block.timestamp > r.deadline) revert Expired();
    if (r.to == address(0)) revert ZeroAddress();
    if (r.to == address(this)) revert RecipientIsBurner();
    if (r.amount == 0) revert NothingToMove();
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
    if (to == address(this)) revert RecipientIsBurner();
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

  /// @dev Takes min(balance, maxIn) of `token` and returns it with its value in USDC, at least `minOut`.
  function _takeAsUsdc(address token, uint256 maxIn, uint256 minOut)
    private
    returns (uint256 amountIn, uint256 usdcOut)
  {
    amountIn = _balanceOf(token);
    if (amountIn > maxIn) amountIn = maxIn;
    if (amountIn == 0) revert NothingToMove();
    if (token == USDC) {
      if (amountIn < minOut) revert BelowMinOut(amountIn, minOut);
      return (amountIn, amountIn);
    }
    if (token == address(0)) {
      IWETH(WETH).deposit{value: amountIn}();
      token = WETH;
    }
    address[] memory path = new address[](2);
    path[0] = token;
    path[1] = USDC;
    // Measured as a balance difference: USDC the burner already held is not this swap's output.
    uint256 before = IERC20(USDC).balanceOf(address(this));
    IERC20(token).forceApprove(ROUTER, amountIn);
    IUniswapV2Router(ROUTER).swapExactTokensForTokens(amountIn, minOut, path, address(this), block.timestamp);
    usdcOut = IERC20(USDC).balanceOf(address(this)) - before;
    // The router enforces the floor already; checked again on what arrived, which is what the payer signed for.
    if (usdcOut < minOut) revert BelowMinOut(usdcOut, minOut);
  }

  function _deliver(uint256 destChainId, address destAddr, uint256 amount, uint256 maxFee, uint32 finality)
    private
  {
    if (destChainId == block.chainid) {
      if (maxFee != 0) revert BridgeFeeTooHigh(maxFee, amount);
      IERC20(USDC).safeTransfer(destAddr, amount);
      return;
    }
    uint32 domain = destinationDomain(destChainId);
    if (maxFee * BPS > amount * MAX_BRIDGE_FEE_BPS) revert BridgeFeeTooHigh(maxFee, amount);
    IERC20(USDC).forceApprove(TOKEN_MESSENGER, amount);
    // destinationCaller 0: anyone may relay the message, so no single relayer can strand the burn.
    ITokenMessengerV2(TOKEN_MESSENGER).depositForBurn(
      amount, domain, bytes32(uint256(uint160(destAddr))), USDC, bytes32(0), maxFee, finality
    );
  }

  // Its own frame: nine event fields plus sweep's arguments do not fit the legacy pipeline's stack.
  function _emitSwept(Intent calldata intent, Settlement memory s) private {
    emit Swept(
      intent.salt,
      intent.inToken,
      intent.destAddr,
      s.amountIn,
      s.usdcOut,
      s.platformFee,
      s.appFee,
      s.delivered,
      intent.destChainId
    );
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
