/** The options module's public entry: the live options (OptionsService, global through OptionsCoreModule). */
export { OptionsService } from './options.service';
export { DEFAULT_MODEL_PRICE } from './pricing-defaults';
export { OptionUpdatedEvent } from './option-updated.event';
