// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/**
 * @notice Stand-in for USDC on local chains: 6 decimals, minted by the owner on demand. Like Circle's FiatToken,
 * configured minters may `mint` and `burn` their own balance: the local CCTP-shaped TokenMessengerV2 is one, so
 * a bridge transfer burns on one chain and mints on the other instead of moving a pool of pre-minted tokens.
 */
contract TestUSDC is ERC20, Ownable {
  mapping(address minter => bool) public isMinter;

  event MinterConfigured(address indexed minter, bool enabled);

  error NotMinter(address caller);

  constructor(address owner) ERC20("Test USD Coin", "USDC") Ownable(owner) {}

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
}
