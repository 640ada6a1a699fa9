import { Validator } from '@cfworker/json-schema';
import { useMemo } from 'react';

type Schema = Record<string, unknown>;
export interface FieldError {
  pointer: string;
  message: string;
}

function asSchema(value: unknown): Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : {};
}

function draftOf(schema: Schema): '4' | '7' | '2019-09' | '2020-12' {
  const id = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (id.includes('draft-04')) return '4';
  if (id.includes('draft-07') || id.includes('draft-06')) return '7';
  if (id.includes('2019-09')) return '2019-09';
  return '2020-12';
}

/**
 * The input validated in the browser against the skill's own JSON Schema, before anything is sent (the
 * registry validates again). @cfworker/json-schema interprets the schema (no code generation), so the
 * console's Content-Security-Policy needs no 'unsafe-eval'.
 */
export function useSchemaValidation(schema: unknown, value: unknown): FieldError[] {
  const validator = useMemo(() => {
    const root = asSchema(schema);
    return new Validator(root as never, draftOf(root), false);
  }, [schema]);
  return useMemo(() => {
    const result = validator.validate(value as never);
    if (result.valid) return [];
    // The innermost errors say what is wrong; the outer ones only that a child failed.
    const errors = result.errors.filter(
      (error) => !/^(properties|items|allOf|\$ref|anyOf|oneOf|additionalProperties)$/.test(error.keyword) || result.errors.length === 1,
    );
    return (errors.length ? errors : result.errors).map((error) => ({
      pointer: error.instanceLocation.replace(/^#/, ''),
      message: error.error,
    }));
  }, [validator, value]);
}

function kindOf(schema: Schema): 'enum' | 'boolean' | 'number' | 'string' | 'json' {
  if (Array.isArray(schema.enum) && schema.enum.every((option) => typeof option === 'string')) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type.find((item) => item !== 'null') : schema.type;
  if (type === 'boolean') return 'boolean';
  if (type === 'integer' || type === 'number') return 'number';
  if (type === 'string') return 'string';
  return 'json';
}

/**
 * A form generated from an object schema: one labelled control per property (select for a string enum,
 * checkbox, number, text; JSON for nested objects and arrays), its description as help, its errors beside it.
 */
export function SchemaForm({
  schema,
  value,
  errors,
  onChange,
}: {
  schema: unknown;
  value: Record<string, unknown>;
  errors: FieldError[];
  onChange(next: Record<string, unknown>): void;
}) {
  const root = asSchema(schema);
  const properties = Object.entries(asSchema(root.properties));
  const required = new Set(Array.isArray(root.required) ? (root.required as string[]) : []);
  const set = (name: string, next: unknown) => {
    const copy = { ...value };
    if (next === undefined) delete copy[name];
    else copy[name] = next;
    onChange(copy);
  };
  return (
    <div className="form-fields">
      {properties.map(([name, raw]) => {
        const property = asSchema(raw);
        const id = `field-${name}`;
        const help = typeof property.description === 'string' ? property.description : undefined;
        const fieldErrors = errors.filter((error) => error.pointer === `/${name}` || error.pointer.startsWith(`/${name}/`));
        const describedBy = [help ? `${id}-help` : '', fieldErrors.length ? `${id}-errors` : ''].filter(Boolean).join(' ') || undefined;
        const kind = kindOf(property);
        const current = value[name];
        return (
          <div key={name} className={`field ${fieldErrors.length ? 'invalid' : ''}`}>
            {kind === 'boolean' ? (
              <label className="check" htmlFor={id}>
                <input
                  id={id}
                  type="checkbox"
                  checked={current === true}
                  aria-describedby={describedBy}
                  onChange={(event) => set(name, event.target.checked)}
                />{' '}
                {name}
                {required.has(name) && ' *'}
              </label>
            ) : (
              <label htmlFor={id}>
                {name}
                {required.has(name) && <span aria-hidden="true"> *</span>}
              </label>
            )}
            {kind === 'enum' && (
              <select
                id={id}
                value={typeof current === 'string' ? current : ''}
                aria-describedby={describedBy}
                aria-required={required.has(name)}
                onChange={(event) => set(name, event.target.value || undefined)}
              >
                <option value="">—</option>
                {(property.enum as string[]).map((option) => (
                  <option key={option}>{option}</option>
                ))}
              </select>
            )}
            {kind === 'number' && (
              <input
                id={id}
                type="number"
                step="any"
                value={typeof current === 'number' ? current : ''}
                aria-describedby={describedBy}
                aria-required={required.has(name)}
                onChange={(event) => set(name, event.target.value === '' ? undefined : Number(event.target.value))}
              />
            )}
            {kind === 'string' && (
              <input
                id={id}
                type="text"
                value={typeof current === 'string' ? current : ''}
                aria-describedby={describedBy}
                aria-required={required.has(name)}
                onChange={(event) => set(name, event.target.value === '' ? undefined : event.target.value)}
              />
            )}
            {kind === 'json' && <JsonField id={id} value={current} describedBy={describedBy} onChange={(next) => set(name, next)} />}
            {help && (
              <p id={`${id}-help`} className="help">
                {help}
              </p>
            )}
            {fieldErrors.length > 0 && (
              <ul id={`${id}-errors`} className="field-errors">
                {fieldErrors.map((error, index) => (
                  <li key={index}>
                    {error.pointer !== `/${name}` && <code>{error.pointer}</code>} {error.message}
                  </li>
                ))}
              </ul>
            )}
          </div>
        );
      })}
    </div>
  );
}

/** A nested object or array edited as JSON text; kept as text until it parses. */
function JsonField({
  id,
  value,
  describedBy,
  onChange,
}: {
  id: string;
  value: unknown;
  describedBy?: string;
  onChange(next: unknown): void;
}) {
  const text = value === undefined ? '' : JSON.stringify(value, null, 2);
  return (
    <textarea
      id={id}
      className="mono"
      rows={Math.min(12, Math.max(3, text.split('\n').length))}
      defaultValue={text}
      key={text}
      aria-describedby={describedBy}
      onBlur={(event) => {
        const raw = event.target.value.trim();
        if (raw === '') return onChange(undefined);
        try {
          onChange(JSON.parse(raw));
        } catch {
          event.target.setCustomValidity('not valid JSON');
          event.target.reportValidity();
          return;
        }
        event.target.setCustomValidity('');
      }}
    />
  );
}
