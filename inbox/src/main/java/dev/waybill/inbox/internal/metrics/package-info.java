/**
 * The inbox's Micrometer meters.
 */
@NullMarked
package dev.waybill.inbox.internal.metrics;

import org.jspecify.annotations.NullMarked;
