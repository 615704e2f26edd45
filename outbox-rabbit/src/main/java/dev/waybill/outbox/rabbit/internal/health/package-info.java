/**
 * The {@code consumers} component of the {@code waybill} health contributor.
 */
@NullMarked
package dev.waybill.outbox.rabbit.internal.health;

import org.jspecify.annotations.NullMarked;
