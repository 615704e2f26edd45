/**
 * Spring Boot auto-configuration of recurring messages: {@code waybill.schedules.<name>.*} and
 * {@code waybill.scheduler.*}.
 */
@NullMarked
package dev.waybill.schedules.autoconfigure;

import org.jspecify.annotations.NullMarked;
