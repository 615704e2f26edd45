/**
 * Recurring messages: {@link dev.waybill.schedules.Schedule cron schedules} whose every tick is
 * published once through the outbox, however many instances run, and the
 * {@link dev.waybill.schedules.Schedules} API that pauses and resumes them.
 */
@NullMarked
package dev.waybill.schedules;

import org.jspecify.annotations.NullMarked;
