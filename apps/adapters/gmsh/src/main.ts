// The gmsh adapter process: `node dist/apps/adapters/gmsh/src/main.js` (env: HOST, PORT=7103, GMSH_BIN, MAX_RUN_SECONDS, ...).
import { runAdapterMain } from '../../common/src/index.js';
import { GMSH_DEFAULT_PORT, gmshAdapter } from './adapter.js';

await runAdapterMain(gmshAdapter({ executable: process.env.GMSH_BIN || undefined }), GMSH_DEFAULT_PORT);
