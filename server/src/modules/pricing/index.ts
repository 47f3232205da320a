/** The pricing module's public entry: new-api's pricing rules, image pricing and the live tables. */
export * from './image-pricing';
export * from './pricing.module';
export * from './pricing.service';
export * from './relay-pricing';
