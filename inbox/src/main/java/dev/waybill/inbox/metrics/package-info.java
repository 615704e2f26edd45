/**
 * The inbox's Micrometer meters.
 */
@NullMarked
package dev.waybill.inbox.metrics;

import org.jspecify.annotations.NullMarked;
