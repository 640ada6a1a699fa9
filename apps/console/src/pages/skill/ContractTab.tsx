import type { Schemas } from '../../api/client';
import { JsonBlock } from '../../components/JsonBlock';
import { SchemaView } from '../../components/SchemaView';

export function ContractTab({ version }: { version: Schemas['SkillVersion'] }) {
  return (
    <div className="stack">
      <div className="stack">
        <section aria-labelledby="input-title">
          <h2 id="input-title">Input</h2>
          <SchemaView schema={version.input_schema} caption="Input schema" />
        </section>
        <section aria-labelledby="output-title">
          <h2 id="output-title">Output</h2>
          <SchemaView schema={version.output_schema} caption="Output schema" />
        </section>
      </div>
      <section aria-labelledby="examples-title">
        <h2 id="examples-title">Examples</h2>
        {version.examples.length === 0 && <p className="muted">No examples declared.</p>}
        {version.examples.map((example, index) => (
          <div key={index} className="example">
            <h3>{example.description ?? `Example ${index + 1}`}</h3>
            <div className="two-columns">
              <JsonBlock value={example.input} label={`Example ${index + 1} input`} />
              {example.output === undefined ? (
                <p className="muted">No output declared: the example is run, its output not compared.</p>
              ) : (
                <JsonBlock value={example.output} label={`Example ${index + 1} output`} />
              )}
            </div>
          </div>
        ))}
      </section>
      {version.validation.length > 0 && (
        <section aria-labelledby="validation-title">
          <h2 id="validation-title">Validation report</h2>
          <ul>
            {version.validation.map((issue, index) => (
              <li key={index} className={issue.severity === 'error' ? 'bad' : 'warn-text'}>
                <code>{issue.category}</code>{' '}
                <code>
                  {issue.file}
                  {issue.path ? ` ${issue.path}` : ''}
                </code>{' '}
                {issue.message}
                {issue.hint && <span className="muted"> — {issue.hint}</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
