import { spawn } from 'node:child_process';

/**
 * Runs npm scripts side by side and prints each one's output whole, in the order given, once it
 * is done; exits 1 if any failed. `npm test` runs its static checks (type check, lint, import
 * rules, format) so: each is mostly one core of work, and one after another they left the other
 * core idle for ~35 s of every run.
 */
interface Outcome {
  readonly script: string;
  readonly code: number;
  readonly output: string;
  readonly seconds: number;
}

function run(script: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const done = (code: number) =>
      resolve({
        script,
        code,
        output: Buffer.concat(chunks).toString('utf8'),
        seconds: (performance.now() - started) / 1000,
      });
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      done(1);
    });
    child.on('close', (code, signal) => done(code ?? (signal === null ? 1 : 128)));
  });
}

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  process.stderr.write('usage: run-checks.ts SCRIPT...\n');
  process.exit(2);
}
const outcomes = await Promise.all(scripts.map(run));
for (const { script, code, output, seconds } of outcomes) {
  process.stdout.write(`> ${script}: ${code === 0 ? 'ok' : `failed (exit code ${code})`} in ${seconds.toFixed(1)} s\n`);
  if (output.trim() !== '') process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
}
process.exitCode = outcomes.some((o) => o.code !== 0) ? 1 : 0;
