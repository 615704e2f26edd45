/**
 * The messages the sample services exchange: the contract both depend on.
 */
@NullMarked
package dev.waybill.samples.messages;

import org.jspecify.annotations.NullMarked;
