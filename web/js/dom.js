/**
 * Small DOM and formatting helpers shared by the dashboard's modules. Elements are built with
 * DOM calls (never innerHTML), so names and commands from the server are always plain text.
 */

/**
 * Creates an element. `attrs`: `class`, `text`, `on<Event>` handlers, `hidden`/`disabled` booleans,
 * `style` objects; every other key is set as an attribute (skipped when null or undefined).
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...(Node|string|null|undefined|false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = String(value);
    else if (key === 'text') el.textContent = String(value);
    else if (key === 'style') Object.assign(el.style, value);
    else if (key.startsWith('on') && typeof value === 'function')
      el.addEventListener(key.slice(2).toLowerCase(), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return el;
}

/** Replaces the children of `el`. @param {Element} el @param {...(Node|string)} children */
export function replaceChildren(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

/**
 * MiB as GiB text: "20 GiB", "1.5 GiB", or "512 MiB" below 1 GiB.
 * @param {number} mib
 */
export function formatMiB(mib) {
  if (mib < 1024) return `${Math.round(mib)} MiB`;
  const gib = mib / 1024;
  return `${Number.isInteger(gib) ? gib : gib.toFixed(1)} GiB`;
}

/** Enforcement levels as people read them (src/cli/format-enforcement.ts says the same). */
const ENFORCEMENT_LABELS = {
  hardware: 'hardware (MIG)',
  exclusive: 'exclusive',
  'driver-per-process': 'per process (MPS)',
  'time-slice': 'time-slice',
  'not-enforced': 'not enforced',
};

/**
 * What enforces a share: "memory not enforced, compute time-slice"; "—" for none (an idle GPU).
 * @param {{ gpuMemory: string, compute: string } | null | undefined} enforcement
 */
export function enforcementText(enforcement) {
  if (!enforcement) return '—';
  const label = (/** @type {string} */ level) =>
    ENFORCEMENT_LABELS[/** @type {keyof typeof ENFORCEMENT_LABELS} */ (level)] ?? level;
  return `memory ${label(enforcement.gpuMemory)}, compute ${label(enforcement.compute)}`;
}

/**
 * Seconds as a short duration: "45 s", "3 min 5 s", "2 h 4 min".
 * @param {number} seconds
 */
export function formatDuration(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** A ratio 0..1 as a percentage text, or "—" for null. @param {number|null} ratio */
export function formatPct(ratio) {
  return ratio === null || ratio === undefined ? '—' : `${Math.round(ratio * 1000) / 10}%`;
}

/** An ISO time as local time of day (and date when not today). @param {string|null} iso */
export function formatTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString() : d.toLocaleString();
}

/** The golden angle in degrees: consecutive hashes land far apart on the colour wheel. */
const GOLDEN_ANGLE = 137.508;
/**
 * Least contrast of segment text (white, `.seg`/`.mig-gi` in style.css) on a tenant colour: WCAG AA (4.5:1) for normal
 * text, with a margin for 8-bit rounding.
 */
const MIN_CONTRAST = 4.6;

/**
 * Relative luminance (WCAG 2) of an HSL colour. @param {number} hue @param {number} sat 0..1 @param {number} light 0..1
 */
function hslLuminance(hue, sat, light) {
  const a = sat * Math.min(light, 1 - light);
  const channel = (n) => {
    const k = (n + hue / 30) % 12;
    const c = light - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(8) + 0.0722 * channel(4);
}

/** WCAG contrast ratio of white text on an HSL colour. @param {number} hue @param {number} sat @param {number} light */
export function contrastWithWhite(hue, sat, light) {
  return 1.05 / (hslLuminance(hue, sat, light) + 0.05);
}

/**
 * A stable colour per tenant: the hue is the name's hash times the golden angle (mod 360), so
 * names that differ by one character (team-a, team-b, team-c) get hues about 137° apart; the
 * lightness alternates between two steps, and is lowered where needed until the white segment
 * text has at least 4.5:1 contrast (WCAG AA). Colour is never the only cue: every segment also
 * carries the tenant's name in its text and accessible name.
 * @param {string} tenant
 */
export function tenantColor(tenant) {
  let hash = 0;
  for (const ch of tenant) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  const hue = Math.round((hash * GOLDEN_ANGLE) % 360);
  const sat = 65;
  let light = hash % 2 === 0 ? 44 : 32;
  while (light > 10 && contrastWithWhite(hue, sat / 100, light / 100) < MIN_CONTRAST) light -= 1;
  return `hsl(${hue} ${sat}% ${light}%)`;
}

/** "job 3 train-a (alice)": how a job is named in labels. @param {{id:number,name:string,tenant:string}} job */
export function jobLabel(job) {
  return `job ${job.id} ${job.name} (${job.tenant})`;
}

/**
 * Notes the focused element inside one of `containers` (by its job or GPU and its tag and class,
 * else its accessible name), so that a re-render can give focus back to the element that replaces
 * it; null when focus is elsewhere.
 * @param {HTMLElement[]} containers
 */
export function rememberFocus(containers) {
  const el = document.activeElement;
  if (!(el instanceof HTMLElement)) return null;
  const section = containers.find((c) => c.contains(el) && c !== el);
  if (!section) return null;
  const key = (/** @type {Element} */ e) =>
    e.closest('[data-job]')?.getAttribute('data-job') ??
    (e.hasAttribute('data-gpu') ? `gpu:${e.getAttribute('data-gpu')}` : null);
  return {
    section,
    key: key(el),
    keyOf: key,
    tag: el.tagName,
    cls: el.className,
    label: el.getAttribute('aria-label'),
  };
}

/**
 * Focuses the new element that stands for the remembered one, if the re-render dropped focus.
 * @param {ReturnType<typeof rememberFocus>} was
 */
export function restoreFocus(was) {
  if (!was || (document.activeElement instanceof HTMLElement && document.activeElement !== document.body)) return;
  const same = [...was.section.getElementsByTagName(was.tag)].find((el) =>
    was.key !== null
      ? el.className === was.cls && was.keyOf(el) === was.key
      : was.label !== null && el.getAttribute('aria-label') === was.label,
  );
  if (same instanceof HTMLElement) same.focus({ preventScroll: true });
}
