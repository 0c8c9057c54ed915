// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @notice What a message's recipient implements (Circle's IMessageHandlerV2).
interface IMessageHandlerV2 {
  function handleReceiveFinalizedMessage(
    uint32 sourceDomain,
    bytes32 sender,
    uint32 finalityThresholdExecuted,
    bytes calldata messageBody
  ) external returns (bool);

  function handleReceiveUnfinalizedMessage(
    uint32 sourceDomain,
    bytes32 sender,
    uint32 finalityThresholdExecuted,
    bytes calldata messageBody
  ) external returns (bool);
}

/**
 * @title MessageTransmitterV2 (local, CCTP V2-shaped)
 * @notice Generic message passing between the local chains with Circle CCTP V2's external interface and message
 * layout, so code written against it runs unchanged against Circle's deployment with other addresses.
 *
 * Header (abi.encodePacked, offsets in bytes):
 *   0 version uint32 (1) | 4 sourceDomain uint32 | 8 destinationDomain uint32 | 12 nonce bytes32 |
 *   44 sender bytes32 | 76 recipient bytes32 | 108 destinationCaller bytes32 | 140 minFinalityThreshold uint32 |
 *   144 finalityThresholdExecuted uint32 | 148 messageBody bytes
 *
 * As in V2, the emitted message carries nonce 0 and finalityThresholdExecuted 0: the attester assigns both, and
 * the message it signs (served by its API) is the one `receiveMessage` accepts. The attestation is the
 * concatenation of `signatureThreshold` 65-byte ECDSA signatures over keccak256(message), from enabled attesters
 * in strictly increasing address order. Each nonce is received once.
 *
 * Not modelled: upgradeable proxies, pausing, rescuing, per-message max body size, the V1 message version.
 */
contract MessageTransmitterV2 is Ownable {
  uint32 public constant MESSAGE_VERSION = 1;
  uint32 public constant FINALITY_THRESHOLD_FINALIZED = 2000;
  uint256 private constant HEADER_LENGTH = 148;
  uint256 private constant SIGNATURE_LENGTH = 65;

  uint32 public immutable localDomain;
  uint256 public immutable signatureThreshold;

  mapping(address attester => bool) public isEnabledAttester;
  /// @notice 1 once a message with this nonce was received (V2 keys used nonces by the bytes32 nonce alone).
  mapping(bytes32 nonce => uint256) public usedNonces;

  event MessageSent(bytes message);
  event MessageReceived(
    address indexed caller,
    uint32 sourceDomain,
    bytes32 indexed nonce,
    bytes32 sender,
    uint32 indexed finalityThresholdExecuted,
    bytes messageBody
  );
  event AttesterEnabled(address indexed attester);
  event AttesterDisabled(address indexed attester);

  error InvalidAttestationLength(uint256 length);
  error InvalidAttester(address recovered);
  error AttestersNotIncreasing();
  error MessageTooShort(uint256 length);
  error InvalidMessageVersion(uint32 version);
  error WrongDestinationDomain(uint32 expected, uint32 actual);
  error WrongDestinationCaller(bytes32 expected, address caller);
  error NonceMissing();
  error NonceAlreadyUsed(bytes32 nonce);
  error SameDomain(uint32 domain);
  error ZeroRecipient();
  error HandlerFailed();

  constructor(uint32 domain, address attester, uint256 threshold, address owner) Ownable(owner) {
    localDomain = domain;
    signatureThreshold = threshold;
    isEnabledAttester[attester] = true;
    emit AttesterEnabled(attester);
  }

  function enableAttester(address attester) external onlyOwner {
    isEnabledAttester[attester] = true;
    emit AttesterEnabled(attester);
  }

  function disableAttester(address attester) external onlyOwner {
    isEnabledAttester[attester] = false;
    emit AttesterDisabled(attester);
  }

  function sendMessage(
    uint32 destinationDomain,
    bytes32 recipient,
    bytes32 destinationCaller,
    uint32 minFinalityThreshold,
    bytes calldata messageBody
  ) external {
    if (destinationDomain == localDomain) revert SameDomain(destinationDomain);
    if (recipient == bytes32(0)) revert ZeroRecipient();
    emit MessageSent(
      abi.encodePacked(
        MESSAGE_VERSION,
        localDomain,
        destinationDomain,
        bytes32(0), // nonce: assigned by the attester
        bytes32(uint256(uint160(msg.sender))),
        recipient,
        destinationCaller,
        minFinalityThreshold,
        uint32(0), // finalityThresholdExecuted: set by the attester
        messageBody
      )
    );
  }

  function receiveMessage(bytes calldata message, bytes calldata attestation) external returns (bool) {
    _verifyAttestation(keccak256(message), attestation);

    if (message.length < HEADER_LENGTH) revert MessageTooShort(message.length);
    uint32 version = uint32(bytes4(message[0:4]));
    if (version != MESSAGE_VERSION) revert InvalidMessageVersion(version);
    uint32 destinationDomain = uint32(bytes4(message[8:12]));
    if (destinationDomain != localDomain) revert WrongDestinationDomain(localDomain, destinationDomain);
    bytes32 destinationCaller = bytes32(message[108:140]);
    if (destinationCaller != bytes32(0) && destinationCaller != bytes32(uint256(uint160(msg.sender)))) {
      revert WrongDestinationCaller(destinationCaller, msg.sender);
    }
    bytes32 nonce = bytes32(message[12:44]);
    if (nonce == bytes32(0)) revert NonceMissing();
    if (usedNonces[nonce] != 0) revert NonceAlreadyUsed(nonce);
    usedNonces[nonce] = 1;

    uint32 sourceDomain = uint32(bytes4(message[4:8]));
    bytes32 sender = bytes32(message[44:76]);
    address recipient = address(uint160(uint256(bytes32(message[76:108]))));
    uint32 finalityThresholdExecuted = uint32(bytes4(message[144:148]));
    bytes calldata body = message[HEADER_LENGTH:];
    bool ok = finalityThresholdExecuted >= FINALITY_THRESHOLD_FINALIZED
      ? IMessageHandlerV2(recipient).handleReceiveFinalizedMessage(sourceDomain, sender, finalityThresholdExecuted, body)
      : IMessageHandlerV2(recipient).handleReceiveUnfinalizedMessage(
        sourceDomain, sender, finalityThresholdExecuted, body
      );
    if (!ok) revert HandlerFailed();

    emit MessageReceived(msg.sender, sourceDomain, nonce, sender, finalityThresholdExecuted, body);
    return true;
  }

  function _verifyAttestation(bytes32 digest, bytes calldata attestation) private view {
    if (attestation.length != SIGNATURE_LENGTH * signatureThreshold) {
      revert InvalidAttestationLength(attestation.length);
    }
    address previous = address(0);
    for (uint256 i = 0; i < signatureThreshold; i++) {
      // Circle signs the bare keccak256(message), no EIP-191 prefix; recover rejects malleable signatures.
      address signer = ECDSA.recover(digest, attestation[i * SIGNATURE_LENGTH:(i + 1) * SIGNATURE_LENGTH]);
      if (!isEnabledAttester[signer]) revert InvalidAttester(signer);
      if (signer <= previous) revert AttestersNotIncreasing();
      previous = signer;
    }
  }
}
