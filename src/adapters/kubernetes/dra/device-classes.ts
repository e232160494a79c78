/**
 * The DeviceClasses of gpushare's DRA driver, one per device type (dra-names.ts): a claim's request
 * names one of them as `deviceClassName`. Pure.
 *
 * Facts: `spec.selectors[].cel.expression` sees `device.driver` and the device's attributes
 * grouped by domain, `device.attributes["<driver>"].<name>` (kubernetes/api resource/v1 types.go
 * v0.37; ../shared docs K8S-DRA-CONTRACTS.md §1.2).
 */
import { DRA_ATTRIBUTES, DRA_DEVICE_CLASSES, DRA_DEVICE_TYPES, DRA_DRIVER, type DraDeviceType } from './dra-names.js';

/** A `resource.k8s.io/v1` DeviceClass. */
export interface DeviceClass {
  readonly apiVersion: 'resource.k8s.io/v1';
  readonly kind: 'DeviceClass';
  readonly metadata: { readonly name: string };
  readonly spec: { readonly selectors: { readonly cel: { readonly expression: string } }[] };
}

/** The CEL selector of a device type. */
export function deviceTypeSelector(type: DraDeviceType): string {
  return `device.driver == "${DRA_DRIVER}" && device.attributes["${DRA_DRIVER}"].${DRA_ATTRIBUTES.type} == "${type}"`;
}

/** The three DeviceClasses: whole GPUs, shares of a GPU, MIG instances. */
export function deviceClasses(): DeviceClass[] {
  const entry = (name: string, type: DraDeviceType): DeviceClass => ({
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name },
    spec: { selectors: [{ cel: { expression: deviceTypeSelector(type) } }] },
  });
  return [
    entry(DRA_DEVICE_CLASSES.gpu, DRA_DEVICE_TYPES.gpu),
    entry(DRA_DEVICE_CLASSES.shared, DRA_DEVICE_TYPES.shared),
    entry(DRA_DEVICE_CLASSES.mig, DRA_DEVICE_TYPES.mig),
  ];
}
