import type { Hex, PublicClient } from "viem";
import { ERC5564_ANNOUNCER } from "../../src/stealth/erc5564.ts";

/**
 * The ERC-5564 announcer (src/contracts/ERC5564Announcer.sol) at the standard's canonical address on
 * a local chain: its runtime code placed there with anvil_setCode, since the address is where the
 * standard's deployer put it on public chains and no transaction of ours can deploy to it. Idempotent:
 * a chain that already holds exactly this code is left alone. Returns whether it placed the code.
 */
export async function placeAnnouncer(client: PublicClient, deployedBytecode: Hex): Promise<boolean> {
  const code = await client.getCode({ address: ERC5564_ANNOUNCER });
  if (code?.toLowerCase() === deployedBytecode.toLowerCase()) return false;
  await client.request({
    method: "anvil_setCode" as never,
    params: [ERC5564_ANNOUNCER, deployedBytecode] as never,
  });
  return true;
}
