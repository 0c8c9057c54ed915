import { linkModule } from "./link.ts";
import { merchantModule } from "./merchant.ts";
import type { EntityModule } from "./module.ts";
import { sessionModule } from "./session.ts";
import { subscriptionModule } from "./subscription.ts";

/**
 * Every entity, in the order the roles start them (and stop them in reverse): the session first;
 * merchants before subscriptions, whose gateway routes take the merchant guards. The one place an
 * entity is added.
 */
export const ENTITY_MODULES: readonly EntityModule[] = [
  sessionModule,
  merchantModule,
  subscriptionModule,
  linkModule,
];
