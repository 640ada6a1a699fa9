import type { Schemas } from '../../api/client';
import { Markdown } from '../../components/Markdown';
import { ProblemView } from '../../components/ProblemView';
import { useFileText } from './file-text';

/** SKILL.md of the version, rendered as Markdown (safely: see Markdown), with its frontmatter's fields beside it. */
export function InstructionsTab({ version }: { version: Schemas['SkillVersion'] }) {
  const text = useFileText(version.name, version.version, 'SKILL.md');
  const frontmatter = version.agent_skill;
  return (
    <div className="stack">
      {frontmatter && (
        <dl className="facts">
          {Object.entries(frontmatter)
            .filter(([, value]) => value !== null && value !== '' && !(Array.isArray(value) && value.length === 0))
            .map(([key, value]) => (
              <div key={key}>
                <dt>{key}</dt>
                <dd>{Array.isArray(value) ? value.join(', ') : typeof value === 'object' ? JSON.stringify(value) : String(value)}</dd>
              </div>
            ))}
        </dl>
      )}
      {text.isPending && <p className="muted">Loading SKILL.md…</p>}
      {text.error && (text.error as { status?: number }).status === 404 ? (
        <p className="muted">This version has no SKILL.md.</p>
      ) : (
        <ProblemView error={text.error} />
      )}
      {text.data !== undefined && <Markdown source={text.data} />}
    </div>
  );
}
