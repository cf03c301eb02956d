/* video_ffmpeg.h - what the FFmpeg video files share (video_ffmpeg.c, video_probe.c). */
#ifndef SATFEAT_VIDEO_FFMPEG_H
#define SATFEAT_VIDEO_FFMPEG_H

/**
 * Lowers FFmpeg's process-wide log level to AV_LOG_QUIET when it is still FFmpeg's default
 * (AV_LOG_INFO: the application never chose one), since the library never prints; a level the
 * application set is kept. Called before the library's first FFmpeg call of an open or a probe.
 */
void satfeat_video_quiet_ffmpeg_log(void);

#endif
