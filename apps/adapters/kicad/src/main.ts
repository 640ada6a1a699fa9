// The kicad adapter process: `node dist/apps/adapters/kicad/src/main.js` (env: HOST, PORT=7104, KICAD_CLI_BIN, MAX_RUN_SECONDS, ...).
import { runAdapterMain } from '../../common/src/index.js';
import { KICAD_DEFAULT_PORT, kicadAdapter } from './adapter.js';

await runAdapterMain(kicadAdapter({ executable: process.env.KICAD_CLI_BIN || undefined }), KICAD_DEFAULT_PORT);
