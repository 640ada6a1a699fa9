/** A short human description of a runtime value, for messages ("\"1\" (a string)", "an array", ...). */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (undefined)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  switch (typeof value) {
    case 'string':
      return `${JSON.stringify(truncate(value))} (a string)`;
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${String(value)} (a ${typeof value})`;
    case 'function':
      return describeFunction(value as (...args: never[]) => unknown);
    case 'object':
      return describeObject(value);
    default:
      return `a ${typeof value}`;
  }
}

function describeFunction(value: (...args: never[]) => unknown): string {
  const source = Function.prototype.toString.call(value);
  const kind = source.startsWith('class') ? 'class' : 'function';
  return value.name ? `${kind} ${value.name}` : `an anonymous ${kind}`;
}

function describeObject(value: object): string {
  const constructorName = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
  const keys = Object.keys(value);
  const keyList = keys.length === 0 ? 'no keys' : `keys ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', ...' : ''}`;
  return constructorName && constructorName !== 'Object' ? `an instance of ${constructorName}` : `an object with ${keyList}`;
}

function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
