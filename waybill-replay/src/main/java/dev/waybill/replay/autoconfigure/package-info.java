/**
 * Spring Boot auto-configuration of replay: {@code waybill.replay.*}.
 */
@NullMarked
package dev.waybill.replay.autoconfigure;

import org.jspecify.annotations.NullMarked;
