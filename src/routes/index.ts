import type { RouteSpec } from '../http/route.js';
import { compressRoutes } from './compress.js';
import { discoveryRoutes } from './discovery.js';
import { healthRoutes } from './health.js';
import { keyRoutes } from './keys.js';

/** Every REST route, one file per area of the spec. */
export const allRoutes: RouteSpec<any, any>[] = [...healthRoutes, ...discoveryRoutes, ...compressRoutes, ...keyRoutes];
