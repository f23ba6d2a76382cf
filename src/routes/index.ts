import { withResponseCheck, type RouteSpec } from '../http/route.js';
import { a2aRoutes } from './a2a.js';
import { codeRoutes } from './code.js';
import { compressRoutes } from './compress.js';
import { expandRoutes } from './expand.js';
import { batchQueueRoutes } from './batchQueue.js';
import { detectRoutes } from './detect.js';
import { federationRoutes } from './federation.js';
import { dashboardRoutes } from './dashboard.js';
import { discoveryRoutes } from './discovery.js';
import { openApiRoutes } from './openapi.js';
import { healthRoutes } from './health.js';
import { internalRoutes } from './internal.js';
import { keyRoutes } from './keys.js';
import { knowledgeRoutes } from './knowledge.js';
import { profileRoutes } from './profiles.js';
import { projectRoutes } from './projects.js';
import { usageRoutes } from './usage.js';
import { billingRoutes } from './billing.js';
import { governanceRoutes, withAudit } from './governance.js';
import { leadRoutes } from './leads.js';
import { licenseRoutes } from './licenses.js';
import { paymentRoutes } from './payments.js';
import { referralRoutes } from './referrals.js';
import { webhookRoutes } from './webhooks.js';
import { communityRoutes } from './community.js';
import { accountRoutes } from './account.js';

/**
 * Every REST route, one file per area of the spec; mutating account routes are audited (governance.ts);
 * under test each JSON success body is checked against its route's response schema (http/route.ts).
 */
export const allRoutes: RouteSpec<any, any>[] = withResponseCheck(withAudit([
  ...healthRoutes,
  ...discoveryRoutes,
  ...dashboardRoutes,
  ...openApiRoutes(() => allRoutes),
  ...compressRoutes,
  ...expandRoutes,
  ...batchQueueRoutes,
  ...codeRoutes,
  ...detectRoutes,
  ...keyRoutes,
  ...usageRoutes,
  ...projectRoutes,
  ...knowledgeRoutes,
  ...profileRoutes,
  ...accountRoutes,
  ...internalRoutes,
  ...referralRoutes,
  ...leadRoutes,
  ...licenseRoutes,
  ...billingRoutes,
  ...paymentRoutes,
  ...governanceRoutes,
  ...webhookRoutes,
  ...federationRoutes,
  ...a2aRoutes,
  ...communityRoutes,
]));
