/**
 * Priorities: a number, higher is more important (as Kubernetes PriorityClass), with named
 * classes for the usual levels.
 */

/** Named priority classes; a higher number is more important (as Kubernetes PriorityClass). */
export const PRIORITY_CLASSES = { low: 100, normal: 500, high: 900, critical: 1000 } as const;
/** One of the names of `PRIORITY_CLASSES`. */
export type PriorityClassName = keyof typeof PRIORITY_CLASSES;
/** The names of the priority classes, lowest first, for error messages and schemas. */
export const PRIORITY_CLASS_NAMES = Object.keys(PRIORITY_CLASSES) as [PriorityClassName, ...PriorityClassName[]];

/**
 * The name of the class a priority number belongs to: the highest class whose value is at or below
 * it (`low` for anything under 500, ...). Numbers under 100 are still `low`.
 */
export function priorityClassOf(priority: number): PriorityClassName {
  let name: PriorityClassName = 'low';
  for (const [className, value] of Object.entries(PRIORITY_CLASSES) as [PriorityClassName, number][]) {
    if (priority >= value) name = className;
  }
  return name;
}
