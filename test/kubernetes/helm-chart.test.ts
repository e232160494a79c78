/**
 * The Helm chart deploy/helm/gpushare without a cluster: `helm lint` passes; values.schema.json
 * refuses a wrong value naming the field and the allowed values; `helm template` with the default
 * values renders exactly the objects of deploy/kubernetes/*.yaml (the hand-written reference, one
 * source of truth checked here: decision 0039), plus the Secrets it generates, whose certificates
 * chain to the CA in the webhook configuration's caBundle and name the Services, and whose
 * assignment key holds 32 random bytes; the values for placement, replicas, skipped namespaces,
 * log level, cert-manager and an existing assignment key Secret land where they should. With
 * draDriver.enabled it renders the DRA driver's DaemonSet, RBAC and DeviceClasses (equal to
 * deviceClasses()), and the two DaemonSets' node affinity gives every node one of them at most.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceClasses } from '../../src/adapters/kubernetes/dra/device-classes.js';
import { GPU_API_LABEL, GPU_APIS } from '../../src/adapters/kubernetes/dra/dra-names.js';
import { CHART_DIR, helmAvailable, objectKeys, parseObjects, runHelm, type RenderedObject } from './support/helm.js';

const DEPLOY = join(import.meta.dirname, '..', '..', 'deploy', 'kubernetes');
const NAMESPACE = 'gpushare-system';
/** Labels Helm's bookkeeping adds to every object; deploy/kubernetes has none of them. */
const HELM_LABELS = [
  'app.kubernetes.io/instance',
  'app.kubernetes.io/managed-by',
  'app.kubernetes.io/version',
  'helm.sh/chart',
];
/**
 * deploy/kubernetes files that are not objects of the chart: the namespace (helm install
 * --create-namespace) and the scheduler's own configuration (NOTES.txt prints its stanza).
 */
const NOT_IN_CHART = ['namespace.yaml', 'scheduler-config.yaml'];
/** Kinds of cluster-scoped objects the chart renders (no namespace). */
const CLUSTER_KINDS = [
  'ClusterRole',
  'ClusterRoleBinding',
  'DeviceClass',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
];

interface PodSpecHolder {
  spec?: { template?: { metadata?: { labels?: Record<string, string> }; spec?: Record<string, unknown> } };
}
interface WebhookConfiguration {
  metadata: { annotations?: Record<string, string> };
  webhooks: {
    clientConfig: { caBundle?: string; service: { name: string; namespace: string } };
    namespaceSelector: { matchExpressions: { key: string; values: string[] }[] };
    failurePolicy: string;
  }[];
}

function withoutHelmLabels(labels: Record<string, string> | undefined): Record<string, string> | undefined {
  if (labels === undefined) return undefined;
  return Object.fromEntries(Object.entries(labels).filter(([key]) => !HELM_LABELS.includes(key)));
}

/** The object as deploy/kubernetes writes it: no Helm labels, the caBundle placeholder. */
function asShipped(object: RenderedObject): RenderedObject {
  const copy = structuredClone(object) as RenderedObject & PodSpecHolder;
  copy.metadata.labels = withoutHelmLabels(copy.metadata.labels);
  const template = copy.spec?.template?.metadata;
  if (template !== undefined) template.labels = withoutHelmLabels(template.labels);
  if (copy.kind === 'MutatingWebhookConfiguration') {
    for (const webhook of (copy as unknown as WebhookConfiguration).webhooks)
      webhook.clientConfig.caBundle = 'CA_BUNDLE_BASE64';
  }
  return copy;
}

function byKey(objects: readonly RenderedObject[]): RenderedObject[] {
  const key = (o: RenderedObject) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  return [...objects].sort((a, b) => key(a).localeCompare(key(b)));
}

function secretData(objects: readonly RenderedObject[], name: string): Record<string, string> {
  const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === name);
  if (secret === undefined) throw new Error(`no Secret ${name} in the rendered chart`);
  return Object.fromEntries(
    Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
  );
}

function find<T>(objects: readonly RenderedObject[], kind: string, name: string): T {
  const object = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (object === undefined) throw new Error(`no ${kind} ${name} in the rendered chart`);
  return object as unknown as T;
}

describe.skipIf(!helmAvailable())('the Helm chart deploy/helm/gpushare', () => {
  let stateDir: string;
  const helm = (args: readonly string[]) => runHelm(args, { stateDir });
  const render = async (...sets: string[]): Promise<RenderedObject[]> => {
    const result = await helm([
      'template',
      'gpushare',
      CHART_DIR,
      '--namespace',
      NAMESPACE,
      ...sets.flatMap((s) => ['--set', s]),
    ]);
    if (result.code !== 0) throw new Error(`helm template failed: ${result.stderr}`);
    return parseObjects(result.stdout);
  };

  beforeAll(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'gpushare-helm-chart-'));
  });
  afterAll(() => {
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('helm lint --strict passes', async () => {
    const result = await helm(['lint', '--strict', CHART_DIR, '--namespace', NAMESPACE]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  it('a wrong value is refused with the field and the allowed values', async () => {
    const logLevel = await helm(['template', 'gpushare', CHART_DIR, '--set', 'logLevel=loud']);
    expect(logLevel.code).toBe(1);
    expect(logLevel.stderr).toContain('/logLevel');
    expect(logLevel.stderr).toContain("'fatal', 'error', 'warn', 'info', 'debug'");
    const typo = await helm(['template', 'gpushare', CHART_DIR, '--set', 'webhook.replica=3']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("additional properties 'replica' not allowed");
    const replicas = await helm(['template', 'gpushare', CHART_DIR, '--set', 'webhook.replicas=0']);
    expect(replicas.code).toBe(1);
    expect(replicas.stderr).toContain('/webhook/replicas');
  });

  it(
    'with the default values (and the autoscaler and the DRA driver on) it renders the objects of ' +
      'deploy/kubernetes, and the generated Secrets',
    async () => {
      const rendered = await render('autoscaler.enabled=true', 'draDriver.enabled=true');
      const shippedFiles = readdirSync(DEPLOY)
        .filter((f) => f.endsWith('.yaml') && !NOT_IN_CHART.includes(f))
        .sort();
      const shipped = shippedFiles.flatMap((f) => parseObjects(readFileSync(join(DEPLOY, f), 'utf8')));
      const secrets = rendered.filter((o) => o.kind === 'Secret');
      expect(objectKeys(secrets)).toEqual([
        `Secret ${NAMESPACE}/gpushare-extender-assignment-key`,
        `Secret ${NAMESPACE}/gpushare-extender-tls`,
        `Secret ${NAMESPACE}/gpushare-scheduler-client-tls`,
        `Secret ${NAMESPACE}/gpushare-webhook-tls`,
      ]);
      const objects = rendered.filter((o) => o.kind !== 'Secret');
      expect(objectKeys(objects)).toEqual(objectKeys(shipped));
      expect(byKey(objects).map(asShipped)).toEqual(byKey(shipped));
      for (const object of rendered) {
        expect(object.metadata.labels?.['app.kubernetes.io/managed-by'], object.metadata.name).toBe('Helm');
        expect(object.metadata.labels?.['app.kubernetes.io/part-of'], object.metadata.name).toBe('gpushare');
      }
      // Without autoscaler.enabled and draDriver.enabled (the defaults), no autoscaler, DRA driver
      // or DeviceClass object.
      expect(objectKeys(await render()).filter((k) => /autoscaler|dra-driver|DeviceClass/.test(k))).toEqual([]);
    },
  );

  it('the generated certificates chain to their CA, name the Services, and the caBundle is that CA', async () => {
    const rendered = await render();
    const webhookTls = secretData(rendered, 'gpushare-webhook-tls');
    const extenderTls = secretData(rendered, 'gpushare-extender-tls');
    const clientTls = secretData(rendered, 'gpushare-scheduler-client-tls');
    const configuration = find<WebhookConfiguration>(rendered, 'MutatingWebhookConfiguration', 'gpushare-webhook');
    const caBundle = Buffer.from(configuration.webhooks[0]!.clientConfig.caBundle!, 'base64').toString();
    expect(caBundle).toBe(webhookTls['ca.crt']);

    const webhookCa = new X509Certificate(webhookTls['ca.crt']!);
    const webhookCert = new X509Certificate(webhookTls['tls.crt']!);
    expect(webhookCa.ca).toBe(true);
    expect(webhookCert.verify(webhookCa.publicKey)).toBe(true);
    expect(webhookCert.checkHost(`gpushare-webhook.${NAMESPACE}.svc`)).toBe(`gpushare-webhook.${NAMESPACE}.svc`);
    expect(webhookCert.subjectAltName).toBe(
      `DNS:gpushare-webhook, DNS:gpushare-webhook.${NAMESPACE}, DNS:gpushare-webhook.${NAMESPACE}.svc, ` +
        `DNS:gpushare-webhook.${NAMESPACE}.svc.cluster.local`,
    );
    const validDays = (Date.parse(webhookCert.validTo) - Date.parse(webhookCert.validFrom)) / 86_400_000;
    expect(Math.round(validDays)).toBe(3650);

    const extenderCa = new X509Certificate(extenderTls['ca.crt']!);
    expect(clientTls['ca.crt']).toBe(extenderTls['ca.crt']);
    expect(new X509Certificate(extenderTls['tls.crt']!).verify(extenderCa.publicKey)).toBe(true);
    expect(new X509Certificate(extenderTls['tls.crt']!).checkHost(`gpushare-extender.${NAMESPACE}.svc`)).toBe(
      `gpushare-extender.${NAMESPACE}.svc`,
    );
    const client = new X509Certificate(clientTls['tls.crt']!);
    expect(client.verify(extenderCa.publicKey)).toBe(true);
    expect(client.subject).toBe('CN=kube-scheduler');
    expect(client.keyUsage).toContain('1.3.6.1.5.5.7.3.2'); // clientAuth
    // Two CAs: the webhook's is not the extender's.
    expect(webhookCa.fingerprint256).not.toBe(extenderCa.fingerprint256);
  });

  it('the generated assignment key is 32 random bytes as base64 text, new on each render', async () => {
    const key = secretData(await render(), 'gpushare-extender-assignment-key');
    expect(Object.keys(key)).toEqual(['key']);
    expect(key.key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(key.key!, 'base64').length).toBe(32);
    // Without a cluster to read it back from, each rendering draws a new one.
    expect(secretData(await render(), 'gpushare-extender-assignment-key').key).not.toBe(key.key);
  });

  it('extender.assignmentKey.existingSecret: the extender mounts that Secret and the chart makes none', async () => {
    const rendered = await render('extender.assignmentKey.existingSecret=ops-signing-key');
    expect(objectKeys(rendered.filter((o) => o.kind === 'Secret'))).toEqual([
      `Secret ${NAMESPACE}/gpushare-extender-tls`,
      `Secret ${NAMESPACE}/gpushare-scheduler-client-tls`,
      `Secret ${NAMESPACE}/gpushare-webhook-tls`,
    ]);
    type PodSpec = {
      volumes: { name: string; secret: { secretName: string } }[];
      containers: { args: string[]; volumeMounts: { name: string; mountPath: string }[] }[];
    };
    const pod = find<{ spec: { template: { spec: PodSpec } } }>(rendered, 'Deployment', 'gpushare-extender').spec
      .template.spec;
    expect(pod.volumes.find((v) => v.name === 'assignment-key')).toEqual({
      name: 'assignment-key',
      secret: { secretName: 'ops-signing-key' },
    });
    expect(pod.containers[0]!.args).toContain('--assignment-key-file=/etc/gpushare/assignment-key/key');
    expect(pod.containers[0]!.volumeMounts.find((m) => m.name === 'assignment-key')?.mountPath).toBe(
      '/etc/gpushare/assignment-key',
    );
    const wrong = await helm([
      'template',
      'gpushare',
      CHART_DIR,
      '--set',
      'extender.assignmentKey.existingSecret=Not_A_Name',
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('/extender/assignmentKey/existingSecret');
  });

  it('extender.service.clusterIP: a fixed Service address the certificate names (host-network scheduler)', async () => {
    const ip = '10.96.0.50';
    const rendered = await render(`extender.service.clusterIP=${ip}`);
    expect(find<{ spec: { clusterIP?: string } }>(rendered, 'Service', 'gpushare-extender').spec.clusterIP).toBe(ip);
    const serving = new X509Certificate(secretData(rendered, 'gpushare-extender-tls')['tls.crt']!);
    expect(serving.checkIP(ip)).toBe(ip);
    expect(serving.checkHost(`gpushare-extender.${NAMESPACE}.svc`)).toBe(`gpushare-extender.${NAMESPACE}.svc`);
    // The address is recorded with the kept certificate: another one on an upgrade issues it anew.
    expect(
      find<{ metadata: { annotations?: Record<string, string> } }>(rendered, 'Secret', 'gpushare-extender-tls').metadata
        .annotations,
    ).toEqual({ 'gpushare.io/certificate-ip': ip });
    // Without it, the certificate has no IP address and the Service no fixed one.
    const plain = await render();
    expect(
      find<{ spec: { clusterIP?: string } }>(plain, 'Service', 'gpushare-extender').spec.clusterIP,
    ).toBeUndefined();
    expect(new X509Certificate(secretData(plain, 'gpushare-extender-tls')['tls.crt']!).checkIP(ip)).toBeUndefined();
    // cert-manager puts the address into the Certificate it issues.
    const managed = await render(`extender.service.clusterIP=${ip}`, 'tls.certManager.enabled=true');
    expect(
      find<{ spec: { ipAddresses?: string[] } }>(managed, 'Certificate', 'gpushare-extender').spec.ipAddresses,
    ).toEqual([ip]);
    const wrong = await helm(['template', 'gpushare', CHART_DIR, '--set', 'extender.service.clusterIP=not-an-ip']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('/extender/service/clusterIP');
  });

  it('values place, scale and configure the components', async () => {
    const rendered = await render(
      'webhook.replicas=1',
      'webhook.skipNamespaces={kube-system,monitoring}',
      'webhook.schedulerName=gpu-scheduler',
      'webhook.nodeSelector.role=infra',
      'extender.replicas=2',
      'extender.tolerations[0].key=dedicated',
      'extender.tolerations[0].operator=Exists',
      'nodeAgent.nodeSelector.pool=gpu',
      'logLevel=debug',
      'image.repository=registry.example/gpushare',
      'image.tag=9.9.9',
      'image.pullPolicy=Always',
      'imagePullSecrets[0].name=pull',
    );
    type Workload = { spec: { replicas?: number; template: { spec: Record<string, unknown> } } };
    const podSpec = (kind: string, name: string) => find<Workload>(rendered, kind, name).spec.template.spec;
    const container = (kind: string, name: string) =>
      (podSpec(kind, name).containers as { image: string; imagePullPolicy?: string; args: string[] }[])[0]!;
    expect(find<Workload>(rendered, 'Deployment', 'gpushare-webhook').spec.replicas).toBe(1);
    // One webhook replica: no PodDisruptionBudget (it would block every drain).
    expect(rendered.filter((o) => o.kind === 'PodDisruptionBudget')).toEqual([]);
    expect(podSpec('Deployment', 'gpushare-webhook').nodeSelector).toEqual({ role: 'infra' });
    expect(podSpec('Deployment', 'gpushare-webhook').imagePullSecrets).toEqual([{ name: 'pull' }]);
    expect(container('Deployment', 'gpushare-webhook').args).toEqual([
      'webhook',
      '--port=8443',
      '--tls-cert=/etc/gpushare/webhook-tls/tls.crt',
      '--tls-key=/etc/gpushare/webhook-tls/tls.key',
      '--log-level=debug',
      '--scheduler-name=gpu-scheduler',
    ]);
    expect(container('Deployment', 'gpushare-webhook').image).toBe('registry.example/gpushare:9.9.9');
    expect(container('Deployment', 'gpushare-webhook').imagePullPolicy).toBe('Always');
    expect(find<Workload>(rendered, 'Deployment', 'gpushare-extender').spec.replicas).toBe(2);
    expect(podSpec('Deployment', 'gpushare-extender').tolerations).toEqual([{ key: 'dedicated', operator: 'Exists' }]);
    expect(podSpec('Deployment', 'gpushare-extender').nodeSelector).toBeUndefined();
    expect(container('Deployment', 'gpushare-extender').args).toContain('--log-level=debug');
    // Maps merge with the defaults (set a key to null to drop it).
    expect(podSpec('DaemonSet', 'gpushare-node-agent').nodeSelector).toEqual({
      'gpushare.io/managed': 'true',
      pool: 'gpu',
    });
    expect(container('DaemonSet', 'gpushare-node-agent').args).toContain('--log-level=debug');
    const configuration = find<WebhookConfiguration>(rendered, 'MutatingWebhookConfiguration', 'gpushare-webhook');
    expect(configuration.webhooks[0]!.namespaceSelector.matchExpressions[0]).toEqual({
      key: 'kubernetes.io/metadata.name',
      operator: 'NotIn',
      values: ['kube-system', 'monitoring', NAMESPACE],
    });
  });

  it('host network, ports, the API server address and simulated GPUs (clusters without kube-proxy)', async () => {
    const rendered = await render(
      'webhook.hostNetwork=true',
      'webhook.port=9443',
      'extender.hostNetwork=true',
      'extender.port=9444',
      'nodeAgent.hostNetwork=true',
      'nodeAgent.simulateGpus=2xA100-80GB',
      'autoscaler.enabled=true',
      'kubernetesApi.host=10.0.0.5',
      'kubernetesApi.port=6443',
    );
    type PodSpec = {
      hostNetwork?: boolean;
      dnsPolicy?: string;
      containers: { args: string[]; env?: { name: string; value?: string }[]; ports?: { containerPort: number }[] }[];
    };
    const podSpec = (kind: string, name: string) =>
      find<{ spec: { template: { spec: PodSpec } } }>(rendered, kind, name).spec.template.spec;
    const apiEnv = [
      { name: 'KUBERNETES_SERVICE_HOST', value: '10.0.0.5' },
      { name: 'KUBERNETES_SERVICE_PORT', value: '6443' },
    ];
    for (const [kind, name] of [
      ['Deployment', 'gpushare-webhook'],
      ['Deployment', 'gpushare-extender'],
      ['DaemonSet', 'gpushare-node-agent'],
      ['Deployment', 'gpushare-autoscaler'],
    ] as const) {
      const spec = podSpec(kind, name);
      expect([name, spec.hostNetwork, spec.dnsPolicy]).toEqual([
        name,
        name === 'gpushare-autoscaler' ? undefined : true,
        name === 'gpushare-autoscaler' ? undefined : 'ClusterFirstWithHostNet',
      ]);
      expect(spec.containers[0]!.env!.filter((e) => e.name.startsWith('KUBERNETES_SERVICE_'))).toEqual(apiEnv);
    }
    expect(podSpec('Deployment', 'gpushare-webhook').containers[0]!.args).toContain('--port=9443');
    expect(podSpec('Deployment', 'gpushare-webhook').containers[0]!.ports).toEqual([
      { name: 'https', containerPort: 9443, protocol: 'TCP' },
    ]);
    expect(podSpec('Deployment', 'gpushare-extender').containers[0]!.args).toContain('--port=9444');
    const extenderService = find<{ spec: { ports: { port: number }[] } }>(rendered, 'Service', 'gpushare-extender');
    expect(extenderService.spec.ports.map((p) => p.port)).toEqual([9444]);
    expect(podSpec('DaemonSet', 'gpushare-node-agent').containers[0]!.args).toContain('--simulate-gpus=2xA100-80GB');
    const badSpec = await helm(['template', 'gpushare', CHART_DIR, '--set', 'nodeAgent.simulateGpus=lots']);
    expect(badSpec.code).toBe(1);
    expect(badSpec.stderr).toContain('/nodeAgent/simulateGpus');
    const badPort = await helm(['template', 'gpushare', CHART_DIR, '--set', 'extender.port=443']);
    expect(badPort.code).toBe(1);
    expect(badPort.stderr).toContain('/extender/port');
    const plainHttp = await helm(['template', 'gpushare', CHART_DIR, '--set', 'kubernetesApi.port=8080']);
    expect(plainHttp.code).toBe(1);
    expect(plainHttp.stderr).toContain('/kubernetesApi/port');
    const samePort = await helm([
      'template',
      'gpushare',
      CHART_DIR,
      ...['webhook.hostNetwork=true', 'extender.hostNetwork=true'].flatMap((v) => ['--set', v]),
    ]);
    expect(samePort.code).toBe(1);
    expect(samePort.stderr).toContain(
      'webhook.port and extender.port must differ when webhook.hostNetwork and extender.hostNetwork ' +
        'are both true (both are 8443)',
    );
    const webhookStrategy = find<{ spec: { strategy: unknown } }>(rendered, 'Deployment', 'gpushare-webhook').spec
      .strategy;
    expect(webhookStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  });

  it('in another namespace and with a name prefix, every name and reference follows', async () => {
    const result = await helm(['template', 'gs', CHART_DIR, '--namespace', 'gpu-infra', '--set', 'nameOverride=gs']);
    expect(result.code).toBe(0);
    const rendered = parseObjects(result.stdout);
    for (const object of rendered) {
      expect(object.metadata.name.startsWith('gs-'), object.metadata.name).toBe(true);
      if (!CLUSTER_KINDS.includes(object.kind))
        expect(object.metadata.namespace, object.metadata.name).toBe('gpu-infra');
    }
    const configuration = find<WebhookConfiguration>(rendered, 'MutatingWebhookConfiguration', 'gs-webhook');
    expect(configuration.webhooks[0]!.clientConfig.service).toMatchObject({
      name: 'gs-webhook',
      namespace: 'gpu-infra',
    });
    const cert = new X509Certificate(secretData(rendered, 'gs-webhook-tls')['tls.crt']!);
    expect(cert.checkHost('gs-webhook.gpu-infra.svc')).toBe('gs-webhook.gpu-infra.svc');
    const binding = find<{ subjects: { name: string; namespace: string }[] }>(
      rendered,
      'ClusterRoleBinding',
      'gs-extender',
    );
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'gs-extender', namespace: 'gpu-infra' }]);
    const args = find<{ spec: { template: { spec: { containers: { args: string[] }[] } } } }>(
      rendered,
      'Deployment',
      'gs-extender',
    ).spec.template.spec.containers[0]!.args.filter((a) => a.startsWith('--lease'));
    expect(args).toEqual(['--lease-namespace=gpu-infra', '--lease-name=gs-extender']);
    // The assignment policy allows the extender's ServiceAccount of this release, written into it (no parameter).
    const policy = find<{ spec: { paramKind?: unknown; variables: { name: string; expression: string }[] } }>(
      rendered,
      'ValidatingAdmissionPolicy',
      'gs-assignment-writer',
    ).spec;
    expect(policy.paramKind).toBeUndefined();
    expect(policy.variables.find((v) => v.name === 'writer')?.expression).toBe(
      "'system:serviceaccount:gpu-infra:gs-extender'",
    );
    expect(
      find<{ spec: Record<string, unknown> }>(rendered, 'ValidatingAdmissionPolicyBinding', 'gs-assignment-writer')
        .spec,
    ).toEqual({ policyName: 'gs-assignment-writer', validationActions: ['Deny'] });
    expect(secretData(rendered, 'gs-extender-assignment-key').key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it('with tls.certManager.enabled, cert-manager issues the same TLS Secrets and injects the caBundle', async () => {
    const rendered = await render('tls.certManager.enabled=true');
    // Only the assignment key, which is no certificate, is still the chart's.
    expect(objectKeys(rendered.filter((o) => o.kind === 'Secret'))).toEqual([
      `Secret ${NAMESPACE}/gpushare-extender-assignment-key`,
    ]);
    expect(objectKeys(rendered.filter((o) => o.apiVersion === 'cert-manager.io/v1'))).toEqual([
      `Certificate ${NAMESPACE}/gpushare-extender`,
      `Certificate ${NAMESPACE}/gpushare-extender-ca`,
      `Certificate ${NAMESPACE}/gpushare-scheduler-client`,
      `Certificate ${NAMESPACE}/gpushare-webhook`,
      `Certificate ${NAMESPACE}/gpushare-webhook-ca`,
      `Issuer ${NAMESPACE}/gpushare-extender-ca`,
      `Issuer ${NAMESPACE}/gpushare-selfsigned`,
      `Issuer ${NAMESPACE}/gpushare-webhook-ca`,
    ]);
    type Certificate = { spec: { secretName: string; dnsNames?: string[]; issuerRef: { name: string } } };
    const webhookCert = find<Certificate>(rendered, 'Certificate', 'gpushare-webhook');
    expect(webhookCert.spec.secretName).toBe('gpushare-webhook-tls');
    expect(webhookCert.spec.dnsNames).toContain(`gpushare-webhook.${NAMESPACE}.svc`);
    expect(webhookCert.spec.issuerRef.name).toBe('gpushare-webhook-ca');
    expect(find<Certificate>(rendered, 'Certificate', 'gpushare-scheduler-client').spec).toMatchObject({
      secretName: 'gpushare-scheduler-client-tls',
      issuerRef: { name: 'gpushare-extender-ca' },
    });
    const configuration = find<WebhookConfiguration>(rendered, 'MutatingWebhookConfiguration', 'gpushare-webhook');
    expect(configuration.metadata.annotations).toEqual({
      'cert-manager.io/inject-ca-from': `${NAMESPACE}/gpushare-webhook`,
    });
    expect(configuration.webhooks[0]!.clientConfig.caBundle).toBeUndefined();

    const issued = await render(
      'tls.certManager.enabled=true',
      'tls.certManager.issuerRef.name=corp-ca',
      'tls.certManager.issuerRef.kind=ClusterIssuer',
    );
    expect(objectKeys(issued.filter((o) => o.apiVersion === 'cert-manager.io/v1'))).toEqual([
      `Certificate ${NAMESPACE}/gpushare-extender`,
      `Certificate ${NAMESPACE}/gpushare-scheduler-client`,
      `Certificate ${NAMESPACE}/gpushare-webhook`,
    ]);
    expect(find<Certificate>(issued, 'Certificate', 'gpushare-webhook').spec.issuerRef).toEqual({
      name: 'corp-ca',
      kind: 'ClusterIssuer',
      group: 'cert-manager.io',
    });
  });

  it('with draDriver.enabled, its DeviceClasses are deviceClasses() of the driver, object for object', async () => {
    const rendered = (await render('draDriver.enabled=true')).filter((o) => o.kind === 'DeviceClass');
    const asDriverWrites = rendered.map((o) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: { name: o.metadata.name },
      spec: (o as unknown as { spec: unknown }).spec,
    }));
    expect(byKey(asDriverWrites as RenderedObject[])).toEqual(byKey(deviceClasses() as unknown as RenderedObject[]));
    expect(asDriverWrites.map((o) => o.metadata.name).sort()).toEqual([
      'gpu.gpushare.io',
      'mig.gpushare.io',
      'shared-gpu.gpushare.io',
    ]);
  });

  it('gives every node the node agent or the DRA driver, never both, by the gpushare.io/gpu-api label', async () => {
    const rendered = await render('draDriver.enabled=true');
    type Term = { matchExpressions: { key: string; operator: string; values: string[] }[] };
    type Placed = {
      nodeSelector?: Record<string, string>;
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: Term[] } } };
    };
    const placement = (name: string) =>
      find<{ spec: { template: { spec: Placed } } }>(rendered, 'DaemonSet', name).spec.template.spec;
    /** Whether a node with `labels` matches the pod's nodeSelector and required node affinity (In, NotIn). */
    const runsOn = (spec: Placed, labels: Record<string, string>): boolean =>
      Object.entries(spec.nodeSelector ?? {}).every(([k, v]) => labels[k] === v) &&
      spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.some((term) =>
        term.matchExpressions.every((e) => {
          const value = labels[e.key];
          if (e.operator === 'In') return value !== undefined && e.values.includes(value);
          if (e.operator === 'NotIn') return value === undefined || !e.values.includes(value);
          throw new Error(`operator ${e.operator} not evaluated here`);
        }),
      );
    const agent = placement('gpushare-node-agent');
    const driver = placement('gpushare-dra-driver');
    const managed = { 'gpushare.io/managed': 'true' };
    const nodes: [string, Record<string, string>][] = [
      ['managed', managed],
      ['managed, device-plugin', { ...managed, [GPU_API_LABEL]: GPU_APIS.devicePlugin }],
      ['managed, dra', { ...managed, [GPU_API_LABEL]: GPU_APIS.dra }],
      ['unmanaged, dra', { [GPU_API_LABEL]: GPU_APIS.dra }],
      ['unmanaged', {}],
    ];
    expect(
      nodes.map(([name, labels]) => [
        name,
        [runsOn(agent, labels) ? 'node-agent' : null, runsOn(driver, labels) ? 'dra-driver' : null].filter(Boolean),
      ]),
    ).toEqual([
      ['managed', ['node-agent']],
      ['managed, device-plugin', ['node-agent']],
      ['managed, dra', ['dra-driver']],
      ['unmanaged, dra', []],
      ['unmanaged', []],
    ]);
    // The node agent keeps off DRA nodes with the DRA driver off too.
    const alone = find<{ spec: { template: { spec: Placed } } }>(await render(), 'DaemonSet', 'gpushare-node-agent');
    expect(runsOn(alone.spec.template.spec, { ...managed, [GPU_API_LABEL]: GPU_APIS.dra })).toBe(false);
  });

  it("draDriver's values: kubelet, CDI and state directories, simulated GPUs, host network, placement", async () => {
    const rendered = await render(
      'draDriver.enabled=true',
      'draDriver.kubeletDir=/var/lib/k0s/kubelet',
      'draDriver.cdiDir=/etc/cdi',
      'draDriver.stateDir=/data/gpushare/dra',
      'draDriver.simulateGpus=2xA100-80GB:mig',
      'draDriver.hostNetwork=true',
      'draDriver.nodeSelector.pool=dra-a100',
      'kubernetesApi.host=10.0.0.5',
      'logLevel=debug',
    );
    type PodSpec = {
      hostNetwork?: boolean;
      nodeSelector?: Record<string, string>;
      volumes: { name: string; hostPath: { path: string; type: string } }[];
      containers: {
        args: string[];
        env: { name: string; value?: string }[];
        volumeMounts: { name: string; mountPath: string }[];
        securityContext: { privileged: boolean };
      }[];
    };
    const pod = find<{ spec: { template: { spec: PodSpec } } }>(rendered, 'DaemonSet', 'gpushare-dra-driver').spec
      .template.spec;
    const container = pod.containers[0]!;
    expect(container.args).toEqual([
      'dra-driver',
      '--kubelet-dir=/var/lib/k0s/kubelet',
      '--cdi-dir=/etc/cdi',
      '--state-dir=/data/gpushare/dra',
      '--mps-dir=/run/gpushare/mps',
      '--log-level=debug',
      '--simulate-gpus=2xA100-80GB:mig',
    ]);
    // Every host directory is mounted at its host path (the kubelet dials the socket path the driver reports).
    expect(pod.volumes.map((v) => [v.name, v.hostPath.path, v.hostPath.type])).toEqual([
      ['plugins-registry', '/var/lib/k0s/kubelet/plugins_registry', 'Directory'],
      ['plugins', '/var/lib/k0s/kubelet/plugins', 'DirectoryOrCreate'],
      ['cdi', '/etc/cdi', 'DirectoryOrCreate'],
      ['state', '/data/gpushare/dra', 'DirectoryOrCreate'],
      ['mps', '/run/gpushare/mps', 'DirectoryOrCreate'],
    ]);
    expect(container.volumeMounts.map((m) => [m.name, m.mountPath])).toEqual(
      pod.volumes.map((v) => [v.name, v.hostPath.path]),
    );
    expect(container.securityContext.privileged).toBe(true);
    expect(pod.hostNetwork).toBe(true);
    expect(pod.nodeSelector).toEqual({ 'gpushare.io/managed': 'true', pool: 'dra-a100' });
    expect(container.env.map((e) => e.name)).toEqual([
      'NODE_NAME',
      'KUBERNETES_SERVICE_HOST',
      'KUBERNETES_SERVICE_PORT',
    ]);
    type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
    expect(find<{ rules: Rule[] }>(rendered, 'ClusterRole', 'gpushare-dra-driver').rules).toEqual([
      {
        apiGroups: ['resource.k8s.io'],
        resources: ['resourceslices'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
    ]);
    for (const [value, field] of [
      ['draDriver.kubeletDir=var/lib/kubelet', '/draDriver/kubeletDir'],
      ['draDriver.cdiDir=/var/run/cdi/', '/draDriver/cdiDir'],
      ['draDriver.simulateGpus=lots', '/draDriver/simulateGpus'],
      ['draDriver.enabled=yes', '/draDriver/enabled'],
    ] as const) {
      const wrong = await helm(['template', 'gpushare', CHART_DIR, '--set-string', value]);
      expect([value, wrong.code]).toEqual([value, 1]);
      expect(wrong.stderr).toContain(field);
    }
    const typo = await helm(['template', 'gpushare', CHART_DIR, '--set', 'draDriver.enable=true']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("additional properties 'enable' not allowed");
  });
});
