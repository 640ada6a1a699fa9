import { Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ExecutionsModule } from '../executions/executions.module.js';
import { McpTaskMethods } from './mcp-task-methods.js';
import { McpTaskStore } from './mcp-task-store.js';
import { McpTasks } from './mcp-tasks.js';

const SWEEP_MS = 10 * 60 * 1000;

/** Deletes expired tasks every ten minutes (on every replica: the delete is idempotent). */
@Injectable()
class McpTaskSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpTasks');
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly tasks: McpTasks) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.tasks.sweep().catch((error: Error) => this.logger.warn(`expired tasks not swept: ${error.message}`));
    }, SWEEP_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}

/** MCP tasks (issue 26 §2): task-augmented tools/call and the tasks methods, for both protocol revisions. */
@Module({
  imports: [ExecutionsModule],
  providers: [McpTaskStore, McpTasks, McpTaskMethods, McpTaskSweep],
  exports: [McpTaskMethods],
})
export class McpTasksModule {}
