import { ClientError } from "../errors.ts";

/**
 * An amount in USDC base units (6 decimals) as the merchant API takes it: a string of digits, or a
 * bigint. A value with anything but digits ("10.5", "1e7", " 10", "-1", a negative bigint) is
 * refused here, before any request, as the interface says; a JavaScript number is refused too,
 * since above 2^53 it is no longer the integer that was meant. Zero, leading zeros and size are the
 * service's rules (400), not repeated here.
 */
export function baseUnits(amount: string | bigint, action: string): string {
  const text = typeof amount === "bigint" ? amount.toString() : amount;
  if (typeof text !== "string" || !/^[0-9]+$/.test(text))
    throw new ClientError(
      "config_error",
      `${action}: amount ${String(amount)} is not an integer string of USDC base units (6 decimals)`,
    );
  return text;
}
