// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The ERC-5564 announcer: anyone may announce, and the event is all there is. A recipient scans
/// `Announcement` logs with its viewing key (docs/STEALTH.md). The local stack places this code at the
/// standard's canonical address, 0x55649E01B5Df198D18D95b5cc5051630cfD45564, so the service and a
/// wallet find it where they would on a public chain. No storage, no owner: nothing to configure or steal.
contract ERC5564Announcer {
  /// @param schemeId ERC-5564 scheme (1: secp256k1 with view tags).
  /// @param stealthAddress The address the payment went to.
  /// @param caller Whoever announced (the service's relayer).
  /// @param ephemeralPubKey The sender's ephemeral public key, compressed.
  /// @param metadata First byte: the view tag.
  event Announcement(
    uint256 indexed schemeId,
    address indexed stealthAddress,
    address indexed caller,
    bytes ephemeralPubKey,
    bytes metadata
  );

  function announce(uint256 schemeId, address stealthAddress, bytes memory ephemeralPubKey, bytes memory metadata)
    external
  {
    emit Announcement(schemeId, stealthAddress, msg.sender, ephemeralPubKey, metadata);
  }
}
