/**
 * The submit form: a shell command (run as `sh -c`), GPU share (a fraction of one GPU, or whole
 * GPUs), memory, mode, isolation, priority, a tenant (admins only) and a name. Errors from the
 * server are shown as they come (they name the field and the allowed values).
 */
import { apiCall } from './api.js';
import { h, replaceChildren } from './dom.js';

/**
 * The submit body for the form's values. @throws Error naming the field for a value the API cannot take
 * @param {FormData} data
 * @param {boolean} admin
 */
export function submitBody(data, admin) {
  const command = String(data.get('command') ?? '').trim();
  if (!command) throw new Error('Command: enter the command to run');
  const gpu = Number(data.get('gpu'));
  if (!Number.isFinite(gpu) || gpu <= 0)
    throw new Error('GPU: enter a fraction of one GPU (e.g. 0.5) or a whole number of GPUs');
  if (gpu > 1 && !Number.isInteger(gpu)) throw new Error('GPU: above 1, give whole GPUs (2, 3, …)');
  const request = gpu > 1 ? { gpuCount: gpu, gpuMilli: 1000 } : { gpuCount: 1, gpuMilli: Math.round(gpu * 1000) };
  if (request.gpuMilli < 1) throw new Error('GPU: the smallest share is 0.001');
  const memoryText = String(data.get('memory') ?? '').trim();
  const memoryGiB = memoryText === '' ? null : Number(memoryText);
  if (memoryGiB !== null && (!Number.isFinite(memoryGiB) || memoryGiB <= 0))
    throw new Error('GPU memory: enter GiB above 0, or leave it empty');
  const name = String(data.get('name') ?? '').trim();
  const tenant = String(data.get('tenant') ?? '');
  return {
    command: ['sh', '-c', command],
    ...(name ? { name } : {}),
    ...(admin && tenant ? { tenant } : {}),
    priority: String(data.get('priority') ?? 'normal'),
    gpu: {
      ...request,
      gpuMemoryMiB: memoryGiB === null ? null : Math.round(memoryGiB * 1024),
      mode: String(data.get('mode')),
      isolation: String(data.get('isolation')),
    },
  };
}

/**
 * Wires the form. @param {{ isAdmin: () => boolean, announce: (text: string) => void }} options
 */
export function setupSubmitForm({ isAdmin, announce }) {
  const form = /** @type {HTMLFormElement} */ (document.getElementById('submit-form'));
  const result = document.getElementById('submit-result');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    let body;
    try {
      body = submitBody(new FormData(form), isAdmin());
    } catch (error) {
      result.className = 'error';
      result.textContent = error.message;
      return;
    }
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      const job = await apiCall('POST', '/jobs', body);
      result.className = 'ok';
      result.textContent = `Submitted job ${job.id} ${job.name} (${job.state}).`;
      announce(`Submitted job ${job.id}`);
    } catch (error) {
      result.className = 'error';
      result.textContent = error.message;
    } finally {
      button.disabled = false;
    }
  });
}

/**
 * Shows the tenant choice to admins only, listing `tenants` (keeps the current choice).
 * @param {boolean} admin @param {string[]} tenants
 */
export function updateTenantChoice(admin, tenants) {
  const field = document.getElementById('submit-tenant-field');
  field.hidden = !admin;
  if (!admin) return;
  const select = /** @type {HTMLSelectElement} */ (document.getElementById('submit-tenant'));
  const current = select.value || 'default';
  const names = tenants.includes(current) ? tenants : [...tenants, current];
  if ([...select.options].map((o) => o.value).join() === names.join()) return;
  replaceChildren(
    select,
    names.map((t) => h('option', { value: t, selected: t === current, text: t })),
  );
}
