import { z } from '@skill-registry/sdk';

export const ScaffoldPinAssignment = z
  .object({
    signal: z.string().min(1).describe('Signal name, e.g. "I2C_SDA" or "LED_STATUS"; becomes the macro / devicetree name'),
    pin: z.string().min(1).describe('MCU pin, e.g. "PB7" (STM32), "P0.13" (nRF), "GPIO4" (ESP32/RP2040), "D13"/"A0" (Arduino)'),
    function: z
      .string()
      .min(1)
      .describe('Pin function named PERIPHERAL_ROLE, e.g. "I2C1_SDA", "USART2_TX", "ADC1_IN0", "TIM2_CH1", or GPIO_INPUT / GPIO_OUTPUT'),
  })
  .strict();

export const GenerateScaffoldInput = z
  .object({
    project: z
      .object({
        name: z
          .string()
          .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/)
          .describe(
            'Project name: letters, digits, "_" or "-", starting with a letter (used for the CMake project and the firmware file name)',
          ),
        mcu_family: z
          .string()
          .min(1)
          .describe(
            'MCU family, e.g. "stm32f4", "stm32g0", "nrf52", "rp2040", "esp32", "atmega328p"; selects CPU flags, pinctrl labels and PlatformIO platform',
          ),
        mcu_part: z.string().min(1).describe('Exact MCU part number, e.g. "STM32F411CEU6"'),
        framework: z
          .enum(['bare_metal_c', 'zephyr', 'arduino'])
          .describe(
            '"bare_metal_c": CMake + arm-none-eabi-gcc with CMSIS-style pin #defines; "zephyr": Zephyr app with a devicetree overlay; "arduino": PlatformIO project',
          ),
        board: z
          .string()
          .min(1)
          .optional()
          .describe(
            'Board identifier: the Zephyr board name (e.g. "blackpill_f411ce") or the PlatformIO board id (e.g. "blackpill_f411ce"); required for arduino',
          ),
        description: z.string().optional().describe('One-paragraph description of the project for the README'),
      })
      .strict()
      .describe('Project metadata'),
    pin_map: z
      .array(ScaffoldPinAssignment)
      .describe('Validated pin map (run validate_pinmap first); a pin may appear only once and signal names must be unique'),
  })
  .strict();

export const GeneratedFile = z.object({
  path: z.string().describe('Path relative to the project root, "/"-separated'),
  content: z.string().describe('Full file content (UTF-8 text, "\\n" line endings)'),
});

export const PeripheralSignal = z.object({
  signal: z.string().describe('Signal name as given'),
  pin: z.string().describe('MCU pin'),
  role: z.string().describe('Role of the pin in the peripheral, e.g. "SDA", "TX", "IN0", "CH1", "OUTPUT"'),
});

export const PeripheralSummary = z.object({
  instance: z.string().describe('Peripheral instance, e.g. "I2C1", "USART2", or "GPIO" for plain GPIO pins'),
  kind: z.enum(['gpio', 'adc', 'dac', 'i2c', 'spi', 'uart', 'timer', 'can', 'usb', 'other']).describe('Peripheral kind'),
  init_function: z.string().describe('Name of the generated init stub, e.g. "i2c1_init"'),
  signals: z.array(PeripheralSignal).describe('Pins of this peripheral, by role then signal'),
});

export const GenerateScaffoldOutput = z.object({
  project_name: z.string().describe('Project name'),
  framework: z.enum(['bare_metal_c', 'zephyr', 'arduino']).describe('Framework the files target'),
  files: z.array(GeneratedFile).describe('Generated files, sorted by path'),
  peripherals: z.array(PeripheralSummary).describe('Peripherals used by the pin map, GPIO first, then by instance name'),
  warnings: z
    .array(z.string().describe('One thing left to the engineer'))
    .describe('What the scaffold could not fill in (unknown CPU, platform or pin mapping) and must be completed by hand'),
});

export type ScaffoldPinAssignment = z.infer<typeof ScaffoldPinAssignment>;
export type GenerateScaffoldInput = z.infer<typeof GenerateScaffoldInput>;
export type GeneratedFile = z.infer<typeof GeneratedFile>;
export type PeripheralSignal = z.infer<typeof PeripheralSignal>;
export type PeripheralSummary = z.infer<typeof PeripheralSummary>;
export type GenerateScaffoldOutput = z.infer<typeof GenerateScaffoldOutput>;
