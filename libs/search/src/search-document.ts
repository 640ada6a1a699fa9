/** Lifecycle states as the ranking sees them (same names as the registry's). */
export type SearchStatus = 'DRAFT' | 'REGISTERED' | 'ACTIVE' | 'DEPRECATED' | 'ARCHIVED';

/** Seed 004's discovery layers (`metadata.dcc-mcp.layer`). */
export type SearchLayer = 'domain' | 'infrastructure' | 'thin-harness' | 'example';

/** Seed 004's trust scopes, in precedence order (search breaks ties admin first). */
export type SearchScope = 'admin' | 'system' | 'user' | 'repo';

/** What the index knows of one skill (its current version). */
export interface SearchDocument {
  /** The skill name; unique in the index. */
  id: string;
  name: string;
  description: string;
  tags: readonly string[];
  domain: string;
  agent: string;
  /** Ids of the tools the skill requires, e.g. `calculix.run_fea`. */
  toolIds: readonly string[];
  /** Agent Skills packages: `metadata.dcc-mcp.search-hint` keywords. */
  searchHint?: string;
  /** Agent Skills packages: `metadata.dcc-mcp.search-aliases`. */
  searchAliases?: readonly string[];
  /** A multi-tool skill's tools (tools.yaml): names, per-tool `search_aliases`, descriptions. */
  toolNames?: readonly string[];
  toolAliases?: readonly string[];
  toolDescriptions?: readonly string[];
  /** Agent Skills packages: the target DCC (`metadata.dcc-mcp.dcc`), lower case; none for a TypeScript skill. */
  dcc?: string;
  /** Further DCCs the `dcc` filter matches (`metadata.dcc-mcp.products`), lower case. */
  products?: readonly string[];
  /** Seed 004's layer; none ranks as a domain skill. */
  layer?: SearchLayer | null;
  /** Seed 004's trust scope; `system` when not given. */
  scope?: SearchScope;
  status: SearchStatus;
  phase: number;
}

/** The searchable fields, in the order their contributions are summed and reported. */
export const SEARCH_FIELDS = [
  'name',
  'tags',
  'domain',
  'agent',
  'description',
  'tool_ids',
  'search_hint',
  'search_aliases',
  'tool_names',
  'tool_aliases',
  'tool_descriptions',
  'dcc',
] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/**
 * Field weights (issue 5 §3, after seed 004's table): a name hit is worth 2.5× a description hit; `dcc` is seed
 * 004's 4.0 and matches only as one whole token (see fieldTokens).
 */
export const FIELD_WEIGHTS: Readonly<Record<SearchField, number>> = {
  name: 5,
  tags: 3,
  domain: 3,
  agent: 3,
  description: 2,
  tool_ids: 2,
  search_hint: 3,
  search_aliases: 3,
  tool_names: 2,
  tool_aliases: 2,
  tool_descriptions: 1,
  dcc: 4,
};

/** The text of one field of a document. */
export function fieldText(document: SearchDocument, field: SearchField): string {
  switch (field) {
    case 'name':
      return document.name;
    case 'tags':
      return document.tags.join(' ');
    case 'domain':
      return document.domain;
    case 'agent':
      return document.agent;
    case 'description':
      return document.description;
    case 'tool_ids':
      return document.toolIds.join(' ');
    case 'search_hint':
      return document.searchHint ?? '';
    case 'search_aliases':
      return (document.searchAliases ?? []).join(' ');
    case 'tool_names':
      return (document.toolNames ?? []).join(' ');
    case 'tool_aliases':
      return (document.toolAliases ?? []).join(' ');
    case 'tool_descriptions':
      return (document.toolDescriptions ?? []).join(' ');
    case 'dcc':
      return document.dcc ?? '';
  }
}
