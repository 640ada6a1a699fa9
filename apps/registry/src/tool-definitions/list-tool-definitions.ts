import { Injectable } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/server';
import { ExposedSkills, type ToolFilter } from './exposed-skills.js';
import { openAiStrictViolations } from './openai-strict.js';
import {
  type AnthropicTool,
  type OpenAiFunctionTool,
  type ToolDefinitionFormat,
  toAnthropicTool,
  toMcpTool,
  toOpenAiTool,
} from './tool-definition-formats.js';

export type ToolDefinitions =
  | { format: 'mcp'; tools: Tool[] }
  | { format: 'anthropic'; tools: AnthropicTool[] }
  | {
      format: 'openai';
      tools: OpenAiFunctionTool[];
      /** Tools exported with `strict: false`, and which strict-mode rules their input schema breaks. */
      non_strict: { name: string; reasons: string[] }[];
    };

/** The exposed skills as tool definitions of one agent framework, ready to hand to it unchanged. */
@Injectable()
export class ListToolDefinitions {
  constructor(private readonly exposed: ExposedSkills) {}

  list(format: ToolDefinitionFormat, filter: ToolFilter): ToolDefinitions {
    const skills = this.exposed.list(filter);
    switch (format) {
      case 'mcp':
        return { format, tools: skills.map(toMcpTool) };
      case 'anthropic':
        return { format, tools: skills.map(toAnthropicTool) };
      case 'openai':
        return {
          format,
          tools: skills.map(toOpenAiTool),
          non_strict: skills
            .map((skill) => ({ name: skill.name, reasons: openAiStrictViolations(skill.inputSchema) }))
            .filter((entry) => entry.reasons.length > 0),
        };
    }
  }
}
