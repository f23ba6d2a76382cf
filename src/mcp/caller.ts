import type { Principal } from '../auth/principal.js';

/** Who calls a session, refreshed on every request (the session store updates it). */
export interface Caller {
  principal: Principal;
  /** Public base URL as the client reached us. */
  baseUrl: string;
}
