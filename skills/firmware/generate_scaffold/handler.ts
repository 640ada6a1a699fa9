import { SkillBase, SkillExecutionError } from '@skill-registry/sdk';
import { arduinoFiles } from './arduino.js';
import { bareMetalFiles } from './bare-metal.js';
import { buildProject, findInputProblems, type Project } from './model.js';
import { readme } from './readme.js';
import { GenerateScaffoldInput, GenerateScaffoldOutput, type GeneratedFile } from './schema.js';
import { zephyrFiles } from './zephyr.js';

function frameworkFiles(project: Project): { files: GeneratedFile[]; warnings: string[] } {
  switch (project.framework) {
    case 'zephyr':
      return zephyrFiles(project);
    case 'arduino':
      return arduinoFiles(project);
    default:
      return bareMetalFiles(project);
  }
}

/** Generates a firmware project skeleton (pins, peripheral init stubs, main, build file, README) from a pin map. */
export class GenerateScaffoldHandler extends SkillBase<typeof GenerateScaffoldInput, typeof GenerateScaffoldOutput> {
  static readonly inputSchema = GenerateScaffoldInput;
  static readonly outputSchema = GenerateScaffoldOutput;

  override async validatePreconditions(input: GenerateScaffoldInput): Promise<string[]> {
    const problems = findInputProblems(input);
    if (input.project.framework === 'arduino' && !input.project.board) {
      problems.push('project.board is required for the arduino framework (the PlatformIO board id, e.g. "nucleo_f411re")');
    }
    return problems;
  }

  async execute(input: GenerateScaffoldInput): Promise<GenerateScaffoldOutput> {
    const problems = await this.validatePreconditions(input);
    if (problems.length > 0) throw new SkillExecutionError(`Cannot generate the scaffold: ${problems.join('; ')}`, { problems });

    const project = buildProject(input);
    const { files, warnings } = frameworkFiles(project);
    const all = [...files, { path: 'README.md', content: readme(project, warnings) }].sort((a, b) =>
      a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    );
    this.logger.info('generated firmware scaffold', { framework: project.framework, files: all.length });
    return {
      project_name: project.name,
      framework: project.framework,
      files: all,
      peripherals: project.peripherals.map((p) => ({
        instance: p.instance,
        kind: p.kind,
        init_function: p.initFunction,
        signals: p.signals.map((s) => ({ signal: s.signal, pin: s.pin.name, role: s.role })),
      })),
      warnings,
    };
  }
}
