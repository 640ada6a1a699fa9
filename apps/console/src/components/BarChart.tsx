interface Bar {
  label: string;
  value: number;
}

/** A horizontal bar chart in SVG, with the figures as text beside the bars (and a table for screen readers). */
export function BarChart({ bars, title }: { bars: Bar[]; title: string }) {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const rowHeight = 22;
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg
        width="100%"
        height={bars.length * rowHeight + 4}
        role="img"
        aria-label={`${title}: ${bars.map((bar) => `${bar.label} ${bar.value}`).join(', ')}`}
      >
        {bars.map((bar, index) => (
          <g key={bar.label} transform={`translate(0, ${index * rowHeight})`}>
            <text x="0" y="15" className="chart-label">
              {bar.label}
            </text>
            <rect x="30%" y="3" height="14" width={`${(bar.value / max) * 55}%`} className="chart-bar" rx="2" />
            <text x={`${31 + (bar.value / max) * 55}%`} y="15" className="chart-value">
              {bar.value}
            </text>
          </g>
        ))}
      </svg>
    </figure>
  );
}
