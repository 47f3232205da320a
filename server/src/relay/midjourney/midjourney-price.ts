import { taskPrice } from '../task/fixed-price';

/** A Midjourney action's price: the tasks' fixed price (ModelPrice, else the default, else 0.1 dollars). */
export const mjPrice = taskPrice;
