// A real S3-compatible server for tests: s3rver on 127.0.0.1, in a child process.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

export /**
 * Starts s3rver in a child process on 127.0.0.1, port 0, and resolves with its port. A child
 * because s3rver encrypts ListObjectsV2 continuation tokens with DES, which OpenSSL 3 only offers
 * with --openssl-legacy-provider: without it every listing past one page fails with a 500.
 */
async function startS3rver(directory: string, bucket: string): Promise<{ port: number; stop: () => Promise<void> }> {
  const script = `
    const S3rver = require(${JSON.stringify(createRequire(import.meta.url).resolve('s3rver'))});
    new S3rver({ address: '127.0.0.1', port: 0, directory: process.argv[1], silent: true, configureBuckets: [{ name: process.argv[2] }] })
      .run().then((address) => process.stdout.write(JSON.stringify({ port: address.port }) + '\\n'));`;
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', script, directory, bucket], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const diedEarly = exited.then(([code]) => Promise.reject(new Error(`s3rver exited with ${code} before listening`)));
  diedEarly.catch(() => undefined); // it also settles at stop()
  const [line] = (await Promise.race([once(createInterface({ input: child.stdout }), 'line'), diedEarly])) as [string];
  const { port } = JSON.parse(line) as { port: number };
  return {
    port,
    stop: async () => {
      child.kill();
      await exited;
    },
  };
}

