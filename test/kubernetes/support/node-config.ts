/**
 * The configuration files of a real test node (real-node.ts): containerd's (v3 format), the
 * kubelet's (KubeletConfiguration v1beta1) and the CNI network's (a bridge with host-local
 * addresses). Pure: the caller writes them.
 *
 * Facts (containerd v2.4 docs/cri/config.md; kubelet v1.37 KubeletConfiguration): the CRI plugin
 * reads CDI specs from `cdi_spec_dirs` when `enable_cdi`; `restrict_oom_score_adj` keeps a
 * container's oom_score_adj at or above containerd's own (root without CAP_SYS_RESOURCE cannot
 * lower it, and runc then fails with "can't get final child's PID from pipe"); on a cgroup v1 host
 * the kubelet runs only with `failCgroupV1: false`, and the cgroupfs driver is the one that works
 * when PID 1 is not systemd; the pause image must be present, as nothing can be pulled.
 */

/** Paths and names a node's files refer to. */
export interface NodeConfigInput {
  /** The node's folder: containerd's root and state, its socket, the CNI configuration. */
  readonly dir: string;
  /** Folder of runc and the containerd shim (scripts/build-node.sh). */
  readonly binDir: string;
  /** Folder of the CNI plugins. */
  readonly cniBinDir: string;
  /** Image of the pods' sandbox, e.g. `gpushare.local/pause:test`. */
  readonly pauseImage: string;
  /** Where CDI specs are read from (the node agent writes `/var/run/cdi`). */
  readonly cdiDir: string;
  /** containerd's socket. */
  readonly containerdSocket: string;
  readonly cniConfDir: string;
}

/** containerd's config.toml. */
export function containerdConfig(input: NodeConfigInput): string {
  const q = (text: string) => JSON.stringify(text);
  return [
    'version = 3',
    `root = ${q(`${input.dir}/containerd/root`)}`,
    `state = ${q(`${input.dir}/containerd/state`)}`,
    '',
    '[grpc]',
    `  address = ${q(input.containerdSocket)}`,
    '',
    '[ttrpc]',
    `  address = ${q(`${input.containerdSocket}.ttrpc`)}`,
    '',
    "[plugins.'io.containerd.cri.v1.runtime']",
    '  enable_cdi = true',
    `  cdi_spec_dirs = [${q(input.cdiDir)}]`,
    '  restrict_oom_score_adj = true',
    '',
    "[plugins.'io.containerd.cri.v1.runtime'.containerd]",
    "  default_runtime_name = 'runc'",
    '',
    "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]",
    "  runtime_type = 'io.containerd.runc.v2'",
    '',
    "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]",
    `  BinaryName = ${q(`${input.binDir}/runc`)}`,
    '  SystemdCgroup = false',
    '',
    "[plugins.'io.containerd.cri.v1.runtime'.cni]",
    `  bin_dirs = [${q(input.cniBinDir)}]`,
    `  conf_dir = ${q(input.cniConfDir)}`,
    '',
    "[plugins.'io.containerd.cri.v1.images'.pinned_images]",
    `  sandbox = ${q(input.pauseImage)}`,
    '',
  ].join('\n');
}

/** The CNI network: bridge `bridgeName` with gateway, addresses from `subnet` (a /24), no masquerading. */
export function cniNetworkConfig(bridgeName: string, subnet: string): object {
  return {
    cniVersion: '1.0.0',
    name: 'gpushare-test',
    plugins: [
      {
        type: 'bridge',
        bridge: bridgeName,
        isGateway: true,
        ipMasq: false,
        ipam: { type: 'host-local', ranges: [[{ subnet }]], routes: [{ dst: '0.0.0.0/0' }] },
      },
      { type: 'loopback' },
    ],
  };
}

/** What the kubelet's configuration names. */
export interface KubeletConfigInput {
  readonly nodeIp: string;
  readonly port: number;
  readonly healthzPort: number;
  readonly cgroupRoot: string;
  readonly containerdSocket: string;
  readonly caFile: string;
  readonly tlsCertFile: string;
  readonly tlsPrivateKeyFile: string;
  readonly podLogsDir: string;
}

/**
 * The KubeletConfiguration: cgroupfs under `cgroupRoot`; serving on `nodeIp:port` with the test
 * CA's certificate, to clients with a certificate of that CA only (kube-apiserver's), each allowed
 * everything; no eviction or image garbage collection on a busy disk; no swap check.
 */
export function kubeletConfig(input: KubeletConfigInput): object {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    failCgroupV1: false,
    cgroupDriver: 'cgroupfs',
    cgroupRoot: input.cgroupRoot,
    containerRuntimeEndpoint: `unix://${input.containerdSocket}`,
    address: input.nodeIp,
    port: input.port,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: input.healthzPort,
    tlsCertFile: input.tlsCertFile,
    tlsPrivateKeyFile: input.tlsPrivateKeyFile,
    // Only clients with a certificate of the test CA (kube-apiserver's kubelet client certificate).
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: false },
      x509: { clientCAFile: input.caFile },
    },
    authorization: { mode: 'AlwaysAllow' },
    failSwapOn: false,
    evictionHard: { 'memory.available': '1Mi', 'nodefs.available': '1%', 'imagefs.available': '1%' },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    resolvConf: '',
    podLogsDir: input.podLogsDir,
    nodeStatusUpdateFrequency: '2s',
    syncFrequency: '5s',
    serializeImagePulls: false,
  };
}
