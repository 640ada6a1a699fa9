import { describe, expect, it } from '@jest/globals';
import { checkGeoScript } from './geo-guard.js';

describe('checkGeoScript', () => {
  it('accepts ordinary scripts, including file commands on plain relative names', () => {
    const script = [
      'SetFactory("OpenCASCADE");',
      'Merge "model.step";',
      '// SystemCall in a comment is harmless',
      '/* Merge "/etc/passwd"; */',
      'Box(1) = {0, 0, 0, 1, 1, 1};',
      'Physical Surface("top face") = {6};',
      'Print.Width = 800;',
      'Printf("volume %g", 1) > "out.txt";',
      'Printf("no redirection %g", 2);',
      'If (1 > 0) Include "part.geo"; EndIf',
    ].join('\n');
    expect(() => checkGeoScript(script)).not.toThrow();
  });

  it.each([
    ['NonBlockingSystemCall "x";', "'NonBlockingSystemCall' is not allowed"],
    ['OnelabRun("x", "y");', "'OnelabRun' is not allowed"],
    ['Solver.Executable0 = "sh";', 'Solver.* options are not allowed'],
    ['Save "/tmp/x.msh";', 'looks like a path outside'],
    ['Save StrCat("a", ".msh");', "'Save' must be followed by a plain"],
    ['Printf("%g", 1) >> "../x";', 'looks like a path outside'],
    ['Printf("%g", 1) > Sprintf("x%g", 2);', 'a Printf redirection must name a plain'],
    ['ShapeFromFile("a.brep");', "'ShapeFromFile' must be followed by a plain"],
    ['Merge "C:\\\\x.step";', 'looks like a path outside'],
  ])('refuses %p', (script, message) => {
    expect(() => checkGeoScript(script)).toThrow(message);
  });
});
