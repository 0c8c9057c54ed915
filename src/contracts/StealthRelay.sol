// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";

/// @notice The part of EIP-3009 the relay calls.
interface IReceiveWithAuthorization {
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
  ) external;
}

/**
 * @notice Gasless withdrawal from a stealth address that holds USDC and no ETH. The stealth key signs two things:
 * an EIP-3009 ReceiveWithAuthorization of `value` to this contract, and a `Withdraw` naming the destination, the
 * relay fee and the relayer, whose `authNonce` is that authorization's nonce, so neither signature works with
 * another. Only the signed relayer may submit, and it is paid the fee; the destination gets the rest. Without the
 * Withdraw signature nobody can choose where the money goes (the authorization only lets this contract pull it),
 * and a stranger who copies a pending withdrawal can neither take the fee nor spend the authorization first.
 */
contract StealthRelay is EIP712 {
  using SafeERC20 for IERC20;

  bytes32 public constant WITHDRAW_TYPEHASH =
    keccak256("Withdraw(address destination,uint256 fee,address relayer,bytes32 authNonce,uint256 deadline)");

  /// @notice The EIP-3009 token withdrawn (the chain's USDC): one token, so `fee` always means units of it.
  address public immutable TOKEN;

  struct Authorization {
    address from;
    uint256 value;
    uint256 validAfter;
    uint256 validBefore;
    bytes32 nonce;
    uint8 v;
    bytes32 r;
    bytes32 s;
  }

  struct Withdrawal {
    address destination;
    uint256 fee;
    /// @notice The one sender accepted and the fee's recipient: a copied transaction reverts for its copier.
    address relayer;
    uint256 deadline;
  }

  event Withdrawn(
    address indexed from,
    address indexed destination,
    bytes32 indexed authNonce,
    uint256 amount,
    uint256 fee,
    address relayer
  );

  error ZeroAddress();
  error Expired();
  error FeeTooHigh();
  error BadSignature();
  error NotRelayer();

  constructor(address token) EIP712("StealthRelay", "1") {
    if (token == address(0)) revert ZeroAddress();
    TOKEN = token;
  }

  /// @notice The digest the stealth key signs for `w` bound to the authorization nonce `authNonce`.
  function withdrawDigest(Withdrawal calldata w, bytes32 authNonce) public view returns (bytes32) {
    return _hashTypedDataV4(keccak256(abi.encode(WITHDRAW_TYPEHASH, w.destination, w.fee, w.relayer, authNonce, w.deadline)));
  }

  /**
   * @notice Pulls `a.value` from `a.from` on its authorization, pays `a.value - w.fee` to `w.destination` and
   * `w.fee` to `w.relayer`, the only caller accepted. Any failed check reverts and nothing moves; the token
   * refuses a used nonce, so each signature pair works once.
   */
  function withdraw(Authorization calldata a, Withdrawal calldata w, bytes calldata withdrawSignature) external {
    // First and cheap: a copy sent by anyone else reverts at its sender's cost, before it can use the nonce.
    if (msg.sender != w.relayer) revert NotRelayer();
    if (w.destination == address(0)) revert ZeroAddress();
    if (block.timestamp > w.deadline) revert Expired();
    // The fee must leave something to deliver: a withdrawal that only pays the relayer is not one.
    if (w.fee >= a.value) revert FeeTooHigh();
    if (ECDSA.recover(withdrawDigest(w, a.nonce), withdrawSignature) != a.from) revert BadSignature();

    IReceiveWithAuthorization(TOKEN).receiveWithAuthorization(
      a.from,
      address(this),
      a.value,
      a.validAfter,
      a.validBefore,
      a.nonce,
      a.v,
      a.r,
      a.s
    );
    uint256 amount = a.value - w.fee;
    IERC20(TOKEN).safeTransfer(w.destination, amount);
    if (w.fee > 0) IERC20(TOKEN).safeTransfer(w.relayer, w.fee);
    emit Withdrawn(a.from, w.destination, a.nonce, amount, w.fee, w.relayer);
  }
}
