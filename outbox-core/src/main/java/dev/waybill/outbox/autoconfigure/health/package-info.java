/**
 * Auto-configuration of the {@code waybill} health contributor.
 */
@NullMarked
package dev.waybill.outbox.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
