// The spice adapter process: `node dist/apps/adapters/spice/src/main.js` (env: HOST, PORT=7101, NGSPICE_BIN, MAX_RUN_SECONDS, ...).
import { runAdapterMain } from '../../common/src/index.js';
import { SPICE_DEFAULT_PORT, spiceAdapter } from './adapter.js';

await runAdapterMain(spiceAdapter({ executable: process.env.NGSPICE_BIN || undefined }), SPICE_DEFAULT_PORT);
