/**
 * The highest priority a tenant may submit at (docs/security.md, "Caps and limits"): its
 * `maxPriorityClass`. A priority number above that class's value is refused (`high` allows up to
 * 900, so 950 is refused); `critical`, the top class, allows any number. Jobs an admin submits are
 * not capped: the cap keeps tenants from preempting each other, not the operator.
 */
import { PRIORITY_CLASSES, type PriorityClassName } from '../../core/index.js';
import { GpushareError } from '../errors.js';
import type { TenantRecord } from '../ports/state-store.js';
import type { Principal } from './tokens.js';

/** The highest priority number `cap` allows; null for no bound (`critical`). */
export function highestPriorityOf(cap: PriorityClassName): number | null {
  return cap === 'critical' ? null : PRIORITY_CLASSES[cap];
}

/**
 * Throws unless `principal` may submit for `tenant` at `priority`.
 * @throws GpushareError 403 `GPUSHARE_PRIORITY_CAP` naming the field `priority`, the tenant's cap
 *   and who may raise it; details `{ field, maxPriorityClass, maxPriority }`
 */
export function checkPriorityCap(principal: Principal, tenant: TenantRecord, priority: number): void {
  if (principal.role === 'admin') return;
  const highest = highestPriorityOf(tenant.maxPriorityClass);
  if (highest === null || priority <= highest) return;
  throw new GpushareError(
    'GPUSHARE_PRIORITY_CAP',
    403,
    `priority: ${priority} is above the cap of tenant "${tenant.name}": its highest priority class is ` +
      `${tenant.maxPriorityClass} (${highest}); an admin can raise it with \`gpushare tenant set-limits ` +
      `${tenant.name} --max-priority CLASS\``,
    { field: 'priority', maxPriorityClass: tenant.maxPriorityClass, maxPriority: highest },
  );
}
