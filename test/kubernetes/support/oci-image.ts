/**
 * Container images for a test node without a registry: a folder (the image's root file system)
 * becomes an OCI image layout tarball of one uncompressed layer, which `ctr images import` loads
 * into containerd's `k8s.io` namespace, where the kubelet finds it (real-node.ts).
 *
 * Facts (OCI image-spec v1.1): an image layout is `oci-layout` ({"imageLayoutVersion":"1.0.0"}),
 * `index.json` and content-addressed `blobs/sha256/<hex>`; a manifest names one config and its
 * layers by digest and size; an uncompressed layer's diff_id is its own digest. containerd's
 * importer names an image after the index entry's `io.containerd.image.name` annotation.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What an image runs (the OCI image config's `config` fields the tests use). */
export interface ImageRunConfig {
  readonly Entrypoint?: readonly string[];
  readonly Cmd?: readonly string[];
  readonly Env?: readonly string[];
  readonly WorkingDir?: string;
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function writeBlob(blobs: string, text: string): { digest: string; size: number } {
  const bytes = Buffer.from(text);
  const hex = createHash('sha256').update(bytes).digest('hex');
  writeFileSync(join(blobs, hex), bytes);
  return { digest: `sha256:${hex}`, size: bytes.length };
}

/**
 * Writes the image `name` (e.g. `gpushare.local/busybox:test`) of root file system `rootfs` to
 * the tarball `outPath`. Files keep their modes; owners become root. Uses GNU tar.
 * @throws Error when tar fails
 */
export async function writeOciImage(name: string, rootfs: string, run: ImageRunConfig, outPath: string): Promise<void> {
  const layout = mkdtempSync(`${outPath}.layout-`);
  try {
    const blobs = join(layout, 'blobs', 'sha256');
    mkdirSync(blobs, { recursive: true });
    const layerPath = join(layout, 'layer.tar');
    execFileSync('tar', [
      '--sort=name',
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      '-C',
      rootfs,
      '-cf',
      layerPath,
      '.',
    ]);
    const layerHex = await sha256OfFile(layerPath);
    const layer = { digest: `sha256:${layerHex}`, size: statSync(layerPath).size };
    renameSync(layerPath, join(blobs, layerHex));
    const config = writeBlob(
      blobs,
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: run,
        rootfs: { type: 'layers', diff_ids: [layer.digest] },
      }),
    );
    const manifest = writeBlob(
      blobs,
      JSON.stringify({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', ...layer }],
      }),
    );
    writeFileSync(join(layout, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
    writeFileSync(
      join(layout, 'index.json'),
      JSON.stringify({
        schemaVersion: 2,
        manifests: [
          {
            mediaType: 'application/vnd.oci.image.manifest.v1+json',
            ...manifest,
            annotations: {
              'io.containerd.image.name': name,
              'org.opencontainers.image.ref.name': name.slice(name.lastIndexOf(':') + 1),
            },
          },
        ],
      }),
    );
    execFileSync('tar', ['-C', layout, '-cf', outPath, 'oci-layout', 'index.json', 'blobs']);
  } finally {
    rmSync(layout, { recursive: true, force: true });
  }
}
