/**
 * The {@code consumers} component of the {@code waybill} health contributor.
 */
@NullMarked
package dev.waybill.outbox.rabbit.health;

import org.jspecify.annotations.NullMarked;
