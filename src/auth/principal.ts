import type { Plan } from './plans.js';

/** Who is calling: resolved once per request by authenticate(). */
export interface Principal {
  userId: string;
  plan: Plan;
  isAdmin: boolean;
  /** The API key used; null for identity-provider sessions. */
  keyId: string | null;
  environment: string | null;
  projectId: string | null;
  via: 'api_key' | 'jwt';
  /** Billing customer id from the identity-provider token (JWT sessions only). */
  billingCustomerId?: string | null;
  /** OAuth scopes of an identity-provider token; undefined for API keys, which are not scope-limited. */
  scopes?: string[];
  /** The key's monthly quota as of authentication (null: uncapped, so no quota query per call). */
  monthlyQuota?: number | null;
  /** The account's privacy setting (users.store_input_previews) as of authentication; absent = no preview kept. */
  storeInputPreviews?: boolean;
}
