import { z } from '@skill-registry/sdk';

export const McuPin = z
  .object({
    name: z
      .string()
      .min(1)
      .describe('Pin name as in the MCU datasheet, e.g. "PA0", "GPIO4", "P0.13", "VDD", "NRST" (matched case-insensitively)'),
    kind: z
      .enum(['io', 'power', 'ground', 'reset', 'boot', 'reserved'])
      .describe('"io" for a usable I/O pin; power/ground/reset/boot/reserved pins must not be assigned in the pin map'),
    functions: z
      .array(z.string().min(1).describe('One function name, e.g. "ADC1_IN0", "I2C1_SDA", "USART2_TX", "TIM2_CH1", "GPIO_INPUT"'))
      .describe(
        'Functions the pin supports, named PERIPHERAL_ROLE (e.g. "SPI1_SCK"). An io pin supports GPIO_INPUT and GPIO_OUTPUT ' +
          'implicitly unless this list names one of them explicitly (list only GPIO_INPUT for an input-only pin)',
      ),
    reserved_for: z
      .string()
      .optional()
      .describe('For io pins with a board-level default use that assigning would take away, e.g. "SWD debug (SWDIO)" or "HSE crystal"'),
  })
  .strict();

export const PinAssignment = z
  .object({
    signal: z
      .string()
      .min(1)
      .describe('Firmware signal name; should equal the schematic net name (matched case-insensitively), e.g. "I2C_SDA"'),
    pin: z.string().min(1).describe('MCU pin the signal is assigned to, e.g. "PB7"'),
    function: z
      .string()
      .min(1)
      .describe('Function the pin is used in, e.g. "I2C1_SDA", "ADC1_IN0", "GPIO_OUTPUT" (GPIO accepted for either direction)'),
  })
  .strict();

export const SchematicConnection = z
  .object({
    net: z.string().min(1).describe('Net name in the schematic, e.g. "I2C_SDA"'),
    pin: z.string().min(1).describe('MCU pin the net is wired to, e.g. "PB7"; a net touching several MCU pins is listed once per pin'),
  })
  .strict();

export const ValidatePinmapInput = z
  .object({
    mcu: z
      .object({
        part_number: z.string().min(1).describe('MCU part number, e.g. "STM32F103C8T6"'),
        pins: z.array(McuPin).min(1).describe('Every pin of the MCU package with its kind and supported functions'),
      })
      .strict()
      .describe('Pin capabilities of the MCU'),
    pin_map: z.array(PinAssignment).describe('Firmware pin assignments to check'),
    schematic_nets: z
      .array(SchematicConnection)
      .optional()
      .describe('Connections of schematic nets to MCU pins; when omitted the schematic cross-checks are skipped'),
  })
  .strict();

export const PinmapFinding = z.object({
  severity: z.enum(['error', 'warning']).describe('"error" makes the pin map invalid; "warning" needs a look but does not'),
  code: z
    .enum([
      'unknown_pin',
      'reserved_pin',
      'pin_double_use',
      'duplicate_assignment',
      'function_unsupported',
      'function_conflict',
      'pin_mismatch',
      'net_unassigned',
      'signal_not_in_schematic',
    ])
    .describe('Kind of finding'),
  pin: z.string().nullable().describe('Pin concerned (the MCU pin list spelling when the pin exists), or null'),
  signal: z.string().nullable().describe('Signal or net concerned, as written in the input, or null'),
  message: z.string().describe('What is wrong and what to change'),
  suggested_pins: z
    .array(z.string().describe('Pin name'))
    .describe('Pins that would fix the finding (free pins offering the needed function, or the pin the schematic uses), at most 5'),
});

export const ValidatePinmapOutput = z.object({
  valid: z.boolean().describe('True when no finding has severity "error"'),
  mcu_part_number: z.string().describe('Part number checked against'),
  assignments_checked: z.number().int().describe('Number of pin map entries checked'),
  schematic_checked: z.boolean().describe('Whether schematic_nets were given and cross-checked'),
  error_count: z.number().int().describe('Number of error findings'),
  warning_count: z.number().int().describe('Number of warning findings'),
  findings: z.array(PinmapFinding).describe('Findings, errors first, then by pin (natural order), signal and code'),
});

export type McuPin = z.infer<typeof McuPin>;
export type PinAssignment = z.infer<typeof PinAssignment>;
export type SchematicConnection = z.infer<typeof SchematicConnection>;
export type ValidatePinmapInput = z.infer<typeof ValidatePinmapInput>;
export type PinmapFinding = z.infer<typeof PinmapFinding>;
export type ValidatePinmapOutput = z.infer<typeof ValidatePinmapOutput>;
