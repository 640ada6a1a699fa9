/** `{ '#executions': '<root>/libs/executions/src', ... }`: each alias prefix and the source folder it stands for. */
export function sourceAliases(root?: string): Record<string, string>;
