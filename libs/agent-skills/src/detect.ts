/**
 * True when a package's files make it an Agent Skills package: a `SKILL.md` at its root and no `definition.json`
 * (which makes it a TypeScript skill package, whose SKILL.md is documentation). `files` are package-relative paths.
 */
export function isAgentSkillsPackage(files: readonly string[]): boolean {
  const root = new Set(files.map((file) => file.replace(/\\/g, '/').replace(/^(\.\/)+/, '')));
  return root.has('SKILL.md') && !root.has('definition.json');
}
