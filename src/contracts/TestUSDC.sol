// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/**
 * @notice Stand-in for USDC on local chains: 6 decimals, minted by the owner on demand. Like Circle's FiatToken,
 * configured minters may `mint` and `burn` their own balance: the local CCTP-shaped TokenMessengerV2 is one, so
 * a bridge transfer burns on one chain and mints on the other instead of moving a pool of pre-minted tokens.
 *
 * It also speaks EIP-3009 as FiatToken v2 does (same type strings, same EIP-712 domain name "USD Coin" and
 * version "2"), so a holder without ETH can sign a transfer that someone else submits: the gasless stealth
 * withdrawal (StealthRelay) is built on `receiveWithAuthorization`.
 */
contract TestUSDC is ERC20, Ownable, EIP712 {
  bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
    keccak256(
      "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
  bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH =
    keccak256(
      "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

  mapping(address minter => bool) public isMinter;
  // EIP-3009 nonces are random 32-byte values, not a counter: a holder may sign several that are spent in any order.
  mapping(address authorizer => mapping(bytes32 nonce => bool)) private _authorizationUsed;

  event MinterConfigured(address indexed minter, bool enabled);
  event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);

  error NotMinter(address caller);
  error AuthorizationNotYetValid();
  error AuthorizationExpired();
  error AuthorizationUsedOrCanceled();
  error InvalidSignature();
  error CallerMustBePayee();

  constructor(address owner) ERC20("USD Coin", "USDC") Ownable(owner) EIP712("USD Coin", "2") {}

  function decimals() public pure override returns (uint8) {
    return 6;
  }

  function configureMinter(address minter, bool enabled) external onlyOwner {
    isMinter[minter] = enabled;
    emit MinterConfigured(minter, enabled);
  }

  function mint(address to, uint256 amount) external {
    if (msg.sender != owner() && !isMinter[msg.sender]) revert NotMinter(msg.sender);
    _mint(to, amount);
  }

  /// @notice FiatToken's burn: a minter destroys tokens it holds (the messenger pulls them in first).
  function burn(uint256 amount) external {
    if (!isMinter[msg.sender]) revert NotMinter(msg.sender);
    _burn(msg.sender, amount);
  }

  /// @notice EIP-3009: whether `nonce` of `authorizer` has been used.
  function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
    return _authorizationUsed[authorizer][nonce];
  }

  // solhint-disable-next-line func-name-mixedcase
  function DOMAIN_SEPARATOR() external view returns (bytes32) {
    return _domainSeparatorV4();
  }

  /// @notice EIP-3009: moves `value` from `from` to `to` on `from`'s signature; anyone may submit it.
  function transferWithAuthorization(
    address from,
    address to,
    uint256 value,
    uint256 validAfter,
    uint256 validBefore,
    bytes32 nonce,
    uint8 v,
    bytes32 r,
    bytes32 s
  ) external {
    _useAuthorization(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
    _transfer(from, to, value);
  }

  /**
   * @notice EIP-3009: the same, submitted by the payee only. A contract that pulls funds on an authorization
   * uses this one: a watcher who copies the signature from the mempool cannot spend it around the contract.
   */
  function receiveWithAuthorization(
    address from,
    address to,
    uint256 value,
    uint256 validAfter,
    uint256 validBefore,
    bytes32 nonce,
    uint8 v,
    bytes32 r,
    bytes32 s
  ) external {
    if (to != msg.sender) revert CallerMustBePayee();
    _useAuthorization(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
    _transfer(from, to, value);
  }

  function _useAuthorization(
    bytes32 typehash,
    address from,
    address to,
    uint256 value,
    uint256 validAfter,
    uint256 validBefore,
    bytes32 nonce,
    uint8 v,
    bytes32 r,
    bytes32 s
  ) private {
    // Both bounds are strict, as in EIP-3009 and FiatToken.
    if (block.timestamp <= validAfter) revert AuthorizationNotYetValid();
    if (block.timestamp >= validBefore) revert AuthorizationExpired();
    if (_authorizationUsed[from][nonce]) revert AuthorizationUsedOrCanceled();
    bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(typehash, from, to, value, validAfter, validBefore, nonce)));
    // OpenZeppelin's recover refuses malleable (high-s) signatures and never returns the zero address.
    if (ECDSA.recover(digest, v, r, s) != from) revert InvalidSignature();
    _authorizationUsed[from][nonce] = true;
    emit AuthorizationUsed(from, nonce);
  }
}
