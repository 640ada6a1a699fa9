// The calculix adapter process: `node dist/apps/adapters/calculix/src/main.js` (env: HOST, PORT=7102, CCX_BIN, MAX_RUN_SECONDS, ...).
import { runAdapterMain } from '../../common/src/index.js';
import { CALCULIX_DEFAULT_PORT, calculixAdapter } from './adapter.js';

await runAdapterMain(calculixAdapter({ executable: process.env.CCX_BIN || undefined }), CALCULIX_DEFAULT_PORT);
