/* video_ffmpeg.h - what the FFmpeg video files share (video_ffmpeg.c, video_probe.c). */
#ifndef SATFEAT_VIDEO_FFMPEG_H
#define SATFEAT_VIDEO_FFMPEG_H

/**
 * Lowers FFmpeg's process-wide log level to AV_LOG_QUIET when it is still FFmpeg's default
 * (AV_LOG_INFO: the application never chose one), since the library never prints; a level the
 * application set is kept. Called before the library's first FFmpeg call of an open or a probe.
 */
void satfeat_video_quiet_ffmpeg_log(void);

/* The only demuxers and decoders the library lets FFmpeg run, in FFmpeg's whitelist syntax. A
 * video file may come from anywhere and FFmpeg's parsers are native code, so what is not a
 * single-file video format (playlists such as HLS that point at other files, subtitle, audio
 * and image formats, hundreds of rarely used demuxers and decoders) stays out of reach. */
#define SATFEAT_VIDEO_CONTAINERS "matroska,mov,avi,nut,yuv4mpegpipe,mpegts,mpeg,ivf,ogg,flv"
#define SATFEAT_VIDEO_CONTAINER_NAMES "Matroska/WebM, MP4/MOV, AVI, NUT, Y4M, MPEG-TS, MPEG-PS, " \
                                      "IVF, Ogg, FLV"
#define SATFEAT_VIDEO_DECODERS                                                                 \
    "h264,hevc,mpeg4,mpeg1video,mpeg2video,h263,flv,vp8,vp9,av1,libdav1d,ffv1,mjpeg,rawvideo," \
    "theora"

/** 1 when the demuxer `name` (AVInputFormat.name, e.g. "mov,mp4,m4a,3gp,3g2,mj2") is one of
 * SATFEAT_VIDEO_CONTAINERS. */
int satfeat_video_container_allowed(const char *name);

/** 1 when the decoder `name` (AVCodec.name) is one of SATFEAT_VIDEO_DECODERS. */
int satfeat_video_decoder_allowed(const char *name);

#endif
