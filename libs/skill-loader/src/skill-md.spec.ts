import { describe, expect, it } from '@jest/globals';
import { IssueList } from './issues.js';
import { checkSkillEntry } from './skill-md.js';

const skillMd = (description: string) => `---\nname: validate-pinmap\ndescription: ${description}\n---\n\n# validate_pinmap\n`;

describe('checkSkillEntry: SKILL.md as MCP Skills clients read it', () => {
  it("warns when the front matter is not valid YAML (an unquoted ': '), naming the problem and skills/list", async () => {
    const issues = new IssueList();
    await checkSkillEntry(skillMd("Checks a pin map against the MCU's pins and the schematic's nets: double use, reserved pins."), issues);
    expect(issues.items).toEqual([
      expect.objectContaining({
        severity: 'warning',
        category: 'docs',
        file: 'SKILL.md',
        message: expect.stringMatching(/": ".*skills\/list/),
      }),
    ]);
  });

  it('has nothing to say of the same description quoted', async () => {
    const issues = new IssueList();
    await checkSkillEntry(skillMd(JSON.stringify("Checks a pin map against the MCU's pins and the schematic's nets: double use.")), issues);
    expect(issues.items).toEqual([]);
  });
});
