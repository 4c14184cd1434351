import { startService } from './src/main.ts';
import { serviceConfigSchema } from './src/config/config.ts';
const cfg = serviceConfigSchema.parse({ storeUrl: process.argv[2], filesDir: '/tmp/r1', port: 9441, demo: true, demoData: false });
try {
  const s = await startService(cfg, { logError: (e) => console.log('LOGERR', e.path, (e.error as any)?.message, (e.error as any)?.statement), log: console.log });
  console.log('UP', s.url, s.demo?.client);
  if (process.argv[3] !== 'stay') await s.close();
} catch (e: any) { console.log('FAIL', e.message, e.statement, e.stack?.split('\n').slice(0,6).join('\n')); process.exit(1); }
