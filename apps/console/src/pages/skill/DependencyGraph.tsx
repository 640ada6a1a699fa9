import type { Schemas } from '../../api/client';

/** The skill in the middle, what it needs on the left, what needs it on the right: a small SVG graph. */
export function DependencyGraph({
  name,
  dependsOn,
  dependents,
}: {
  name: string;
  dependsOn: Schemas['SkillDependency'][];
  dependents: Schemas['Dependent'][];
}) {
  const left = dependsOn.map((dependency) => `${dependency.name} ${dependency.range}`);
  const right = [...new Set(dependents.map((dependent) => `${dependent.name} ${dependent.version}`))];
  const rows = Math.max(1, left.length, right.length);
  const height = rows * 36 + 8;
  const y = (index: number, count: number) => ((index + 0.5) * height) / Math.max(1, count);
  const describe = `${name} depends on ${left.join(', ') || 'nothing'}; ${right.join(', ') || 'nothing'} depend on it`;
  return (
    <svg className="graph" viewBox={`0 0 720 ${height}`} width="100%" height={height} role="img" aria-label={describe}>
      {left.map((label, index) => (
        <g key={label}>
          <line x1="200" y1={y(index, left.length)} x2="280" y2={height / 2} className="edge" />
          <rect x="4" y={y(index, left.length) - 13} width="196" height="26" rx="4" className="node" />
          <text x="12" y={y(index, left.length) + 5} className="node-text">
            {label}
          </text>
        </g>
      ))}
      {right.map((label, index) => (
        <g key={label}>
          <line x1="440" y1={height / 2} x2="520" y2={y(index, right.length)} className="edge" />
          <rect x="520" y={y(index, right.length) - 13} width="196" height="26" rx="4" className="node" />
          <text x="528" y={y(index, right.length) + 5} className="node-text">
            {label}
          </text>
        </g>
      ))}
      <rect x="280" y={height / 2 - 15} width="160" height="30" rx="4" className="node self" />
      <text x="360" y={height / 2 + 5} textAnchor="middle" className="node-text self">
        {name}
      </text>
    </svg>
  );
}
