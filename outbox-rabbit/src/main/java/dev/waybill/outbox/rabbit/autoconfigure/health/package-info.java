/**
 * Auto-configuration of the {@code consumers} health component.
 */
@NullMarked
package dev.waybill.outbox.rabbit.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
